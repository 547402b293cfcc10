"""Building an engine around a scripted provider, and running a turn to its end.

A test plays the front end: it answers each permission question the engine
asks (`answer_questions`), by default as headless mode does (it refuses).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agentcli.engine.events import Event, ToolPermissionRequested, TurnEnded
from agentcli.engine.query_engine import EngineConfig, QueryEngine
from agentcli.permissions.gate import PermissionGate, headless_answer
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.rules import parse_tool_list
from agentcli.permissions.types import PermissionAnswer, PermissionMode, PermissionRequest
from agentcli.tools.base import Tool, Workspace
from agentcli.tools.registry import ToolRegistry


def make_engine(
    provider: Any,
    tools: list[Tool],
    root: Path,
    *,
    mode: PermissionMode = PermissionMode.BYPASS,
    allow: list[str] | None = None,
    deny: list[str] | None = None,
    ask: list[str] | None = None,
    max_turns: int | None = None,
    streaming: bool = True,
) -> QueryEngine:
    workspace = Workspace(root=root)
    policy = PermissionPolicy(
        workspace,
        mode,
        allow=parse_tool_list(allow, "test"),
        deny=parse_tool_list(deny, "test"),
        ask=parse_tool_list(ask, "test"),
    )
    return QueryEngine(
        provider=provider,
        tools=ToolRegistry(tools),
        gate=PermissionGate(policy),
        workspace=workspace,
        config=EngineConfig(
            model="claude-test", max_turns=max_turns, start_tools_while_streaming=streaming
        ),
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
