"""Running one subagent: build its engine, give it the task, pass its events on.

The Task tool hands each call here. The sub-engine comes from the
composition root (`build`, given the parent engine, the agent and its
`Asker`: kind, Task description, id), so it shares the parent's provider,
permission policy, workspace, hooks, MCP servers and checkpoint recorder.
Its events reach the parent's stream wrapped in `SubagentEvent`, except
permission questions: they go as they are (with `request.asked_by` naming
the subagent), so every front end answers them; the subagent's gate shares
its parent's lock, so questions still come one at a time. Its tokens and
cost add to the parent's totals as each answer arrives; Esc (the parent's
abort signal) interrupts it; its engine's `max_turns` bounds it. The
SubagentStart hooks run before it is given its task (their context goes
with it); its SubagentStop hooks run where its loop would stop
(agents/hooks.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentcli.agents.definitions import AgentCatalog, AgentDefinition
from agentcli.core.abort import AbortSignal
from agentcli.core.messages import text_of
from agentcli.engine.events import (
    AssistantMessage,
    EndReason,
    Event,
    Notice,
    SubagentEvent,
    ToolCallStarted,
    ToolPermissionRequested,
    TurnEnded,
)
from agentcli.engine.query_engine import QueryEngine
from agentcli.tools.base import ToolContext

if TYPE_CHECKING:
    from agentcli.permissions.question_models import Asker
    from agentcli.tools.display import SubagentDisplay

# (parent engine, agent, who it is: kind, Task description, id) -> the subagent's engine
BuildSubagent = Callable[[QueryEngine, AgentDefinition, "Asker"], QueryEngine]


@dataclass
class SubagentRun:
    """What one subagent did: its final answer, and the facts its display shows."""

    agent: AgentDefinition
    description: str
    answer: str = ""
    reason: EndReason | None = None
    error: str | None = None
    tool_uses: int = 0
    tokens: int = 0
    transcript: str | None = None
    max_turns: int | None = None  # its bound (agents/sub_engine.py)

    @property
    def completed(self) -> bool:
        return self.reason is EndReason.COMPLETED

    def see(self, event: Event) -> None:
        match event:
            case AssistantMessage(message=message, usage=usage):
                self.tokens += usage.input_tokens + usage.output_tokens
                self.answer = text_of(message) or self.answer
            case ToolCallStarted():
                self.tool_uses += 1
            case TurnEnded(reason=reason, error=error):
                self.reason, self.error = reason, error

    def display(self) -> SubagentDisplay:
        from agentcli.tools.display import SubagentDisplay  # pydantic: when a subagent ends

        status = "completed" if self.completed else _status(self.reason)
        return SubagentDisplay(
            agent_type=self.agent.name,
            description=self.description,
            status=status,
            tool_uses=self.tool_uses,
            tokens=self.tokens,
            transcript=self.transcript,
        )


TURN_LIMIT = "turn limit reached"


def _status(reason: EndReason | None) -> str:
    if reason is EndReason.MAX_TURNS:
        return TURN_LIMIT
    if reason in (EndReason.ABORTED_STREAMING, EndReason.ABORTED_TOOLS, None):
        return "interrupted"
    return "failed"


class SubagentLauncher:
    """Starts the session's subagents. `attach()` names the parent engine once the
    composition root has built it (the Task tool is one of that engine's tools)."""

    def __init__(self, catalog: AgentCatalog, build: BuildSubagent) -> None:
        self.catalog = catalog
        self._build = build
        self._parent: QueryEngine | None = None

    def attach(self, parent: QueryEngine) -> None:
        self._parent = parent

    async def run(
        self,
        agent: AgentDefinition,
        description: str,
        prompt: str,
        ctx: ToolContext,
        emit: Callable[[Event], None],
    ) -> SubagentRun:
        """Run the subagent to its end, passing its events to `emit` as they happen."""
        parent = self._parent
        if parent is None:
            raise RuntimeError("the launcher has no parent engine")
        from agentcli.permissions.question_models import Asker

        asker = Asker(
            agent_type=agent.name, description=description, agent_id=uuid.uuid4().hex[:16]
        )
        engine = self._build(parent, agent, asker)
        missing = unavailable_tools(agent, engine)
        if missing:
            words = f"The {agent.name} subagent runs without {', '.join(missing)}"
            emit(Notice(f"{words}: not available in this session", "warning"))
        await _start_hooks(parent, engine, asker, emit)
        run = SubagentRun(agent, description, max_turns=engine.config.max_turns)
        transcript = engine.transcript
        run.transcript = str(transcript.path) if transcript is not None else None
        abort = AbortSignal()
        stop = ctx.abort.on_abort(lambda: abort.abort(ctx.abort.reason or "interrupted"))
        try:
            async with aclosing(engine.submit_message(prompt, abort=abort)) as events:
                async for event in events:
                    run.see(event)
                    if isinstance(event, AssistantMessage):
                        parent.account(event.usage, event.model)
                    emit(_passed_on(event, ctx.tool_use_id, run))
        finally:
            stop()
            if transcript is not None:
                transcript.close()
        return run


async def _start_hooks(
    parent: QueryEngine, engine: QueryEngine, asker: Asker, emit: Callable[[Event], None]
) -> None:
    """SubagentStart: it cannot stop the subagent; what it prints for the person is
    shown, its `additionalContext` goes with the task (the subagent's first prompt)."""
    if parent.hooks is None:
        return
    outcome = await parent.hooks.subagent_start(asker.agent_id, asker.agent_type)
    for text in outcome.notices:
        emit(Notice(text, "warning"))
    if outcome.block is not None:
        emit(Notice(f"SubagentStart hook: {outcome.block}", "warning"))
    if engine.hooks is not None:
        engine.hooks.session_context.extend(outcome.context)


def unavailable_tools(agent: AgentDefinition, engine: QueryEngine) -> list[str]:
    """The tools an agent file names that its engine does not have (a typo, or a tool
    of Claude Code's that agentcli lacks): the agent runs without them."""
    have = set(engine.visible_tools().names())
    return [name for name in agent.tools or () if name not in have]


def _passed_on(event: Event, tool_use_id: str, run: SubagentRun) -> Event:
    """What the parent's stream gets: the event wrapped, except a question, which goes
    as it is, so that every front end answers it (it names the subagent)."""
    if isinstance(event, ToolPermissionRequested):
        return event
    return SubagentEvent(tool_use_id, run.agent.name, run.description, event)
