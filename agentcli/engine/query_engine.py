"""QueryEngine: one session's state, and `submit_message()` to drive the loop.

It is built whole (engine/parts.py) by the composition root
(agentcli/wiring/composition.py) and owns the conversation (the list of API-shaped
messages), the running totals (usage, cost, turns), and the abort signal of
the turn in progress. The UI and headless mode both consume the events
`submit_message()` yields. The transcript hears of each message as soon as it
is complete; a message of tool results comes with
the calls' displays (meta `displays`), so a resumed session shows them as the
live one did. A resumed session starts from its transcript's totals and last
request's usage; `start_over()` begins a new session on the same parts
(`/clear`).

Each prompt gets an id (`submit_message(prompt_id=...)`, a new uuid by
default) that its transcript record and its checkpoints share;
`rewind_conversation()` takes the conversation back to just before one, and
the transcript records that as a branch (nothing in the file is deleted).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import (
    INTERRUPT_MARKER,
    INTERRUPTED_MESSAGE,
    Block,
    Message,
    SystemBlock,
    answer_dangling_tool_uses,
    text_of,
    user_message,
)
from agentcli.core.pricing import add_cost, cost_usd
from agentcli.core.usage import Usage
from agentcli.engine.compaction import CompactionOutcome, Compactor
from agentcli.engine.context import with_memory
from agentcli.engine.conversation import MessageMeta, RequestShaper
from agentcli.engine.events import (
    AssistantMessage,
    EndReason,
    Event,
    Notice,
    ToolCallFinished,
    TurnEnded,
    UserMessage,
)
from agentcli.engine.loop import QueryParams, query
from agentcli.engine.parts import Checkpoints, EngineConfig, EngineParts, SessionStart, Transcript
from agentcli.engine.server_tools import offered
from agentcli.engine.windows import context_usage
from agentcli.hooks.events import Hooks
from agentcli.permissions.gate import PermissionGate
from agentcli.providers.base import Provider, api_of
from agentcli.tools.base import Workspace
from agentcli.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agentcli.config.settings import Settings
    from agentcli.mcp.manager import McpManager
    from agentcli.plugins.places import Places
    from agentcli.tools.display import ToolDisplay


class QueryEngine:
    def __init__(self, parts: EngineParts, start: SessionStart | None = None) -> None:
        self._parts = parts
        self._abort: AbortSignal | None = None
        self._displays: dict[str, ToolDisplay] = {}  # of calls whose results are not out yet
        self._visible: tuple[tuple[object, ...], ToolRegistry] | None = None
        self._begin(start or SessionStart())

    def _begin(self, start: SessionStart) -> None:
        self.session_id = start.session_id
        self.messages: list[Message] = list(start.messages)
        self.usage = start.totals.usage
        self.cost_usd: float | None = start.totals.cost_usd  # None: unknown prices
        self.turns = start.totals.turns
        self.last_request_usage = start.last_request_usage
        self._prompts: dict[str, Message] = dict(start.prompts)  # prompt id -> its message
        self._counted: dict[int, Usage] = {}  # id of an answer -> its request's usage
        if self._parts.observer is not None:
            self._parts.observer.session_started(self.session_id)

    # -- the parts, as the composition root gave them -------------------------

    @property
    def parts(self) -> EngineParts:
        return self._parts

    @property
    def provider(self) -> Provider | None:
        return self._parts.provider

    @property
    def tools(self) -> ToolRegistry:
        return self._parts.tools

    @property
    def gate(self) -> PermissionGate:
        return self._parts.gate

    @property
    def workspace(self) -> Workspace:
        return self._parts.workspace

    @property
    def config(self) -> EngineConfig:
        return self._parts.config

    @property
    def system(self) -> list[SystemBlock]:
        return self._parts.system

    @property
    def hooks(self) -> Hooks | None:
        return self._parts.hooks

    @property
    def compactor(self) -> Compactor | None:
        return self._parts.compactor

    @property
    def shape_request(self) -> RequestShaper | None:
        return self._parts.shape_request

    @property
    def settings(self) -> Settings | None:
        return self._parts.settings

    @property
    def places(self) -> Places:
        """Where command files, agent files and skills come from (plugins/places.py)."""
        return self._parts.places

    @property
    def transcript(self) -> Transcript | None:
        return self._parts.transcript

    @property
    def mcp(self) -> McpManager | None:
        return self._parts.mcp

    @property
    def checkpoints(self) -> Checkpoints | None:
        return self._parts.checkpoints

    def connect(self, provider: Provider) -> None:
        """Hand over the model provider once a front end has loaded it (the TUI builds
        the engine first, after its first frame). Call it on the thread that
        runs the engine's turns, and not during one."""
        if self.busy:
            raise RuntimeError("a turn is running")
        self._parts = replace(self._parts, provider=provider)

    # -- turns ----------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._abort is not None

    def interrupt(self, reason: str = "interrupted by user") -> None:
        """Stop the turn in progress (model stream and tools). Harmless when idle."""
        if self._abort is not None:
            self._abort.abort(reason)

    def visible_tools(self) -> ToolRegistry:
        """The tools the model is shown now: the built-in ones, then the MCP servers'
        (sorted: the list is part of the cached prompt prefix); a bare deny rule hides
        a tool, and a tool the API runs is offered only where it may run
        (engine/server_tools.py). The same registry until any of that changes."""
        mcp, policy, provider = self.mcp, self.gate.policy, self.provider
        key = (
            mcp.generation if mcp is not None else 0,
            tuple(policy.deny),
            tuple(policy.ask),
            policy.locked_reason,
            api_of(provider, self.config.model) if provider is not None else None,
        )
        if self._visible is None or self._visible[0] != key:
            tools = [*self.tools, *(mcp.tools() if mcp is not None else [])]
            shown = (
                t
                for t in tools
                if not policy.hides(t.name) and offered(t, provider, self.config.model, policy)
            )
            self._visible = (key, ToolRegistry(shown))
        return self._visible[1]

    async def submit_message(
        self,
        prompt: str | list[Block],
        *,
        abort: AbortSignal | None = None,
        prompt_id: str | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Add the person's message and run the loop until it ends; yield every event.

        `prompt_id`: the id the prompt is known by (a new uuid by default)."""
        provider = self.provider
        if provider is None:
            raise RuntimeError("no model provider is configured")
        abort = abort or AbortSignal()
        self._abort = abort
        try:
            if self.hooks is not None:
                from agentcli.hooks.session import check_prompt

                check = await check_prompt(self.hooks, prompt)
                for text in check.notices:
                    yield Notice(text, "warning")
                if check.blocked is not None:  # UserPromptSubmit: the model is not called
                    yield Notice(check.blocked, "warning")
                    yield TurnEnded(EndReason.HOOK_STOPPED, 0, error=check.blocked)
                    return
                prompt = check.prompt
            problem = await self._add_prompt(user_message(prompt), prompt_id or str(uuid.uuid4()))
            if problem is not None:
                yield Notice(problem, "warning")
            observer = self._parts.observer
            if observer is not None:
                observer.prompt_submitted(self.session_id, prompt)
            async with aclosing(query(self._query_params(provider, abort))) as events:
                async for event in events:
                    self._observe(event)
                    if observer is not None:
                        observer.event(self.session_id, self.config.model, event)
                    yield event
        finally:
            self._abort = None
            self._displays.clear()
            # A consumer that stopped listening mid-turn may leave calls unanswered;
            # answer them so the next request is still one the API accepts.
            repair = answer_dangling_tool_uses(self.messages, INTERRUPTED_MESSAGE, INTERRUPT_MARKER)
            if repair is not None:
                self.notify(repair, {})

    def _query_params(self, provider: Provider, abort: AbortSignal) -> QueryParams:
        compactor = self.compactor
        return QueryParams(
            messages=self.messages,
            provider=provider,
            tools=self.visible_tools(),
            tools_at_request=self.visible_tools if self.mcp is not None else None,
            gate=self.gate,
            workspace=self.workspace,
            model=self.config.model,
            system=self.system,
            max_tokens=self.config.max_tokens,
            reasoning=self.config.reasoning,
            max_turns=self.config.max_turns,
            abort=abort,
            start_tools_while_streaming=self.config.start_tools_while_streaming,
            shape_request=self.shape_request,
            before_request=None if compactor is None else partial(compactor.before_request, self),
            hooks=self.hooks,
            checkpoints=self.checkpoints,
            small_model=self.config.small_model,
            account=self.account,
        )

    async def compact(self, focus: str = "") -> CompactionOutcome:
        """`/compact [focus]`: summarise the older history now (engine/compaction.py).
        A failure leaves the conversation as it was. An engine built without a
        compactor (tests) compacts with a one-off one."""
        if self.busy:
            return CompactionOutcome(False, "a turn is running; wait for it to end")
        compactor = self.compactor or Compactor(auto=False)
        self._abort = abort = AbortSignal()  # Esc (interrupt()) cancels the summary call
        try:
            return await compactor.compact(self, focus=focus, trigger="manual", abort=abort)
        finally:
            self._abort = None

    # -- prompts and rewinding ----------------------------------------------------

    def prompt_ids(self) -> list[str]:
        """The ids of the prompts in the conversation as it stands, oldest first."""
        present = {id(message) for message in self.messages}
        return [pid for pid, message in self._prompts.items() if id(message) in present]

    def rewind_conversation(self, prompt_id: str) -> Message:
        """Take the conversation back to just before the prompt `prompt_id`; returns
        that prompt's message (to put back into the input), and the size of what is
        left (`last_request_usage`). The transcript keeps the whole history and
        records the branch. Raises KeyError for a prompt that is not in the
        conversation (anymore), RuntimeError during a turn."""
        if self.busy:
            raise RuntimeError("a turn is running")
        message = self._prompts.get(prompt_id)
        index = next((i for i, m in enumerate(self.messages) if m is message), None)
        if message is None or index is None:
            raise KeyError(prompt_id)
        del self.messages[index:]
        present = {id(m) for m in self.messages}
        self._prompts = {p: m for p, m in self._prompts.items() if id(m) in present}
        self._counted = {i: u for i, u in self._counted.items() if i in present}
        self.last_request_usage = self._usage_left()
        if self.transcript is not None:
            self.transcript.rewind(prompt_id)
        if self.checkpoints is not None:
            self.checkpoints.conversation_rewound(prompt_id)
        return message

    def conversation_compacted(self) -> None:
        """The compactor replaced the older messages by a summary: the API's counts of
        earlier requests no longer measure the conversation (a kept answer's count
        includes what was summarised), so its size is the estimate `/context` shows
        until the next request is counted."""
        self._counted.clear()
        self.last_request_usage = Usage(input_tokens=context_usage(self).total)

    def prompt_messages(self) -> list[Message]:
        """The person's prompts in the conversation (what a compaction carries verbatim)."""
        return list(self._prompts.values())

    def reload_memory(self) -> list[Path] | None:
        """Read the memory files again into the system prompt (after a compaction, so an
        AGENTS.md changed meanwhile applies); the files read, None when this engine's
        prompt carries none. The system list is replaced in place: a running turn's
        loop holds the same list, and its next request is the one that sees it."""
        read = self._parts.read_memory
        if read is None:
            return None
        memory = read()
        self._parts.system[:] = with_memory(self._parts.system, memory)
        return [item.path for item in memory.files]

    def _usage_left(self) -> Usage:
        """The size of the conversation left by a rewind: the API's count of the last
        request whose answer is still in it; for an answer from before a resume (the
        engine keeps no count of those), the estimate `/context` shows."""
        for message in reversed(self.messages):
            if message["role"] == "assistant":
                counted = self._counted.get(id(message))
                if counted is not None:
                    return counted
                return Usage(input_tokens=context_usage(self).total)
        return Usage()  # nothing left: as a new conversation

    async def _add_prompt(self, message: Message, prompt_id: str) -> str | None:
        """Add the person's prompt under its id, and open its checkpoint; the problem
        recording the checkpoint, if any (the prompt goes on without one)."""
        self._prompts[prompt_id] = message
        self.messages.append(message)
        self.notify(message, {"promptId": prompt_id})
        if self.checkpoints is None:
            return None
        try:
            await asyncio.to_thread(self.checkpoints.begin_prompt, prompt_id, text_of(message))
        except OSError as exc:
            return f"cannot record checkpoints: {exc.strerror or exc}"
        return None

    # -- sessions -------------------------------------------------------------

    def start_over(
        self,
        session_id: str,
        transcript: Transcript | None,
        checkpoints: Checkpoints | None = None,
    ) -> None:
        """Begin a new session on the same parts (`/clear`, by
        `composition.start_new_session()`): a new id, transcript and checkpoints, no
        messages, totals from zero; the compactor and the hooks follow."""
        if self.busy:
            raise RuntimeError("a turn is running")
        self._parts = replace(self._parts, transcript=transcript, checkpoints=checkpoints)
        self._begin(SessionStart(session_id=session_id))
        if self.compactor is not None:
            self.compactor.reset()
        if self.hooks is not None:
            path = str(transcript.path) if transcript is not None else None
            self.hooks.begin_session(session_id, path)

    async def start_session(self, source: str = "startup") -> list[str]:
        """SessionStart hooks (front ends call this once); returns notices for the person."""
        if self.hooks is None:
            return []
        from agentcli.hooks.session import start_session

        return await start_session(self.hooks, source)

    async def end_session(self, reason: str = "other") -> list[str]:
        """End the session's background commands (tools/background/: none outlives its
        session: exit, `/clear`, the end of a `-p` run), then the SessionEnd hooks (front
        ends call this on exit); returns notices for the person."""
        tasks = self.workspace.background
        if tasks is not None:
            await tasks.stop_all()
        if self.hooks is None:
            return []
        from agentcli.hooks.session import end_session

        return await end_session(self.hooks, reason)

    # -- accounting and the transcript ------------------------------------------

    def account(self, usage: Usage, model: str) -> None:
        """Add a model request's tokens and cost to the session's totals."""
        self.usage = self.usage + usage
        cost = cost_usd(model, usage, self.config.models)
        self.cost_usd = add_cost(self.cost_usd, cost)
        if self._parts.observer is not None:
            self._parts.observer.spent(self.session_id, model, usage, cost)

    def notify(self, message: Message, meta: MessageMeta) -> None:
        """Tell the transcript of a complete message (and what came with it). A prompt
        kept verbatim by a compaction keeps its id."""
        if meta.get("kept"):
            prompt_id = next((p for p, m in self._prompts.items() if m is message), None)
            meta = {**meta, "promptId": prompt_id} if prompt_id else meta
        if self.transcript is not None:
            self.transcript(message, meta)

    def _observe(self, event: Event) -> None:
        match event:
            case AssistantMessage(message=message, usage=usage, model=model):
                self.account(usage, model)
                self.last_request_usage = self._counted[id(message)] = usage
                self.notify(message, {"model": model, "usage": usage.to_dict()})
                if self.compactor is not None:
                    self.compactor.measured(len(self.messages), usage)
            case ToolCallFinished(tool_use_id=tool_use_id, display=display) if display:
                self._displays[tool_use_id] = display
            case UserMessage(message=message):
                self.notify(message, self._displays_of(message))
            case TurnEnded(turns=turns):
                self.turns += turns

    def _displays_of(self, message: Message) -> MessageMeta:
        """Meta for a message of tool results: the displays of its calls, as JSON."""
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        ids = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        shown = {
            i: self._displays.pop(i).model_dump(mode="json") for i in ids if i in self._displays
        }
        return {"displays": shown} if shown else {}
