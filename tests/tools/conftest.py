"""Fixtures for the file tool tests: a workspace over tmp_path and a way to call a tool."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.tools.base import Tool, ToolContext, ToolResult, Workspace

RunTool = Callable[..., Awaitable[ToolResult]]


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "project"
    root.mkdir()
    return Workspace(root=root)


@pytest.fixture
def ctx(workspace: Workspace) -> ToolContext:
    return ToolContext(workspace=workspace, abort=AbortSignal())


async def call_tool(tool: Tool, ctx: ToolContext, **raw: Any) -> ToolResult:
    """Validate `raw` as the engine would, then run the tool."""
    inp = tool.input_model.model_validate(raw)
    return await tool.run(inp, ctx)


@pytest.fixture
def run_tool(ctx: ToolContext) -> RunTool:
    """`await run_tool(ReadTool(), file_path=...)`: the tool run in this test's context."""

    async def run(tool: Tool, **raw: Any) -> ToolResult:
        return await call_tool(tool, ctx, **raw)

    return run
