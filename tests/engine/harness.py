"""Building an engine around a scripted provider, and running a turn to its end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.engine.events import Event, TurnEnded
from agentcli.engine.query_engine import EngineConfig, QueryEngine
from agentcli.permissions.gate import PermissionGate, headless_approver
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.rules import parse_tool_list
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import Tool, Workspace
from agentcli.tools.registry import ToolRegistry


def make_engine(
    provider: Any,
    tools: list[Tool],
    root: Path,
    *,
    mode: PermissionMode = PermissionMode.BYPASS,
    approver=headless_approver,
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
        gate=PermissionGate(policy, approver),
        workspace=workspace,
        config=EngineConfig(
            model="claude-test", max_turns=max_turns, start_tools_while_streaming=streaming
        ),
    )


async def run_turn(engine: QueryEngine, prompt: str) -> list[Event]:
    events = [event async for event in engine.submit_message(prompt)]
    assert isinstance(events[-1], TurnEnded), "the last event must be TurnEnded"
    assert sum(isinstance(e, TurnEnded) for e in events) == 1
    return events


def of_type(events: list[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]
