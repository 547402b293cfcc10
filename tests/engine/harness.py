"""Building an engine around a scripted provider, and running a turn to its end.

`make_engine()` goes through the composition root's `assemble()`, the same one
`bootstrap.build_engine()` ends in, with explicit parts instead of settings
files: a test names the tools, the mode and the rules it needs, and gets the
rest of a front end's engine only when it asks (`session=True`).

A test plays the front end: it answers each permission question the engine
asks (`answer_questions`), by default as headless mode does (it refuses).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from agentcli.agents.definitions import AgentCatalog
from agentcli.config.hooks import HooksConfig
from agentcli.config.rules import parse_tool_list
from agentcli.config.settings import Settings
from agentcli.core.reasoning import Reasoning
from agentcli.engine.compaction import Compactor
from agentcli.engine.events import Event, ToolPermissionRequested, TurnEnded
from agentcli.engine.parts import EngineConfig
from agentcli.engine.query_engine import QueryEngine
from agentcli.mcp.manager import McpManager
from agentcli.permissions.gate import headless_answer
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest
from agentcli.permissions.types import PermissionMode
from agentcli.providers.base import Provider
from agentcli.session.loader import LoadedSession
from agentcli.tools.base import Tool, Workspace
from agentcli.tools.registry import ToolRegistry
from agentcli.wiring.composition import assemble


def make_engine(
    provider: Provider | None,
    tools: Iterable[Tool],
    root: Path,
    *,
    mode: PermissionMode = PermissionMode.BYPASS,
    allow: list[str] | None = None,
    deny: list[str] | None = None,
    ask: list[str] | None = None,
    max_turns: int | None = None,
    streaming: bool = True,
    model: str = "claude-test",
    system: list[dict[str, Any]] | None = None,
    hooks: dict[str, Any] | None = None,
    session: bool = False,
    compactor: Compactor | None = None,
    resumed: LoadedSession | None = None,
    mcp: McpManager | None = None,
    agents: AgentCatalog | None = None,
    settings: Settings | None = None,
    reasoning: Reasoning | None = None,
) -> QueryEngine:
    """`hooks`: the settings' `hooks` object. `session`: what bootstrap also gives a
    front end's engine: a transcript, the request shaping (tool-result budget, cache
    breakpoints) and auto-compaction (`compactor`, or a default one). `resumed`: a
    claimed session to go on with (written to only with `session`). `mcp`: the
    session's MCP servers (the test starts and closes them). `agents`: the subagents the
    Task tool offers (None: no Task tool)."""
    workspace = Workspace(root=root)
    policy = PermissionPolicy(
        workspace,
        mode,
        allow=parse_tool_list(allow, "test"),
        deny=parse_tool_list(deny, "test"),
        ask=parse_tool_list(ask, "test"),
    )
    return assemble(
        provider=provider,
        tools=ToolRegistry(tools),
        policy=policy,
        config=EngineConfig(
            model=model,
            max_turns=max_turns,
            start_tools_while_streaming=streaming,
            reasoning=reasoning or Reasoning(),
        ),
        settings=settings,
        system=system or [],
        hooks=None if hooks is None else HooksConfig.model_validate(hooks),
        resumed=resumed,
        persist=session,
        shape_requests=session,
        compactor=(compactor or Compactor()) if session else compactor,
        mcp=mcp,
        agents=agents,
    )


Answerer = Callable[[PermissionRequest], Awaitable[PermissionAnswer]]


async def refuse(request: PermissionRequest) -> PermissionAnswer:
    """What headless mode answers."""
    return headless_answer(request)


def answer_questions(event: Event, answer: Answerer = refuse) -> None:
    """If `event` asks a question, answer it with `answer(request)`: in a task of its
    own, as a front end does (the events go on meanwhile), cancelled if the engine
    withdraws the question first."""
    if isinstance(event, ToolPermissionRequested):
        question = event.question
        task = asyncio.ensure_future(_reply(question, answer))
        question.on_close(task.cancel)


async def _reply(question: PermissionQuestion, answer: Answerer) -> None:
    question.answer(await answer(question.request))


async def run_turn(engine: QueryEngine, prompt: str, answer: Answerer = refuse) -> list[Event]:
    events = []
    async for event in engine.submit_message(prompt):
        answer_questions(event, answer)
        events.append(event)
    assert isinstance(events[-1], TurnEnded), "the last event must be TurnEnded"
    assert sum(isinstance(e, TurnEnded) for e in events) == 1
    return events


def of_type(events: list[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]
