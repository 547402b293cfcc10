"""`agentcli mcp serve`: agentcli as an MCP server (Claude Code's `claude mcp serve`).

Two kinds of tool are offered:

- agentcli's own tools (Read, Edit, Write, Bash, Grep, Glob, WebFetch), each
  call run by the engine's own tool runner (engine/orchestration.py): the
  same input validation, permission policy, hooks and sandbox as in the app.
  Nobody can be asked here, so a call the policy would ask about is refused,
  as in `-p`, with the reason and the flag that would allow it: the policy is
  the one given at start (`--permission-mode`, `--allowedTools`,
  `--disallowedTools`, the settings files of the folder served);
- `agentcli`, which runs a whole agent turn on a prompt (agent_turn.py) and
  returns its final text, with progress notifications while it runs.

A call the client cancels (`notifications/cancelled`) is stopped the way Esc
stops one: the SDK cancels its handler, the turn's stream is closed, running
commands' process groups are killed.

The folder served is trusted as `-p` trusts its folder: the client that
starts the server decides where it runs.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from agentcli import __version__
from agentcli.core.abort import AbortSignal
from agentcli.engine.events import ToolCallFinished, ToolPermissionRequested
from agentcli.engine.orchestration import ToolRunner
from agentcli.engine.query_engine import QueryEngine
from agentcli.frontends.mcp_server.agent_turn import AGENT_TOOL, AgentTurns
from agentcli.permissions.gate import headless_answer

# The built-in tools that make sense without a conversation: WebSearch runs on the
# model's side, TodoWrite and ExitPlanMode belong to a session.
SERVED_TOOLS = ("Read", "Edit", "Write", "Bash", "Grep", "Glob", "WebFetch")


@dataclass(frozen=True)
class ServedTools:
    """The engine whose tools, policy and hooks the direct calls use."""

    engine: QueryEngine

    def listing(self) -> list[types.Tool]:
        served = []
        for name in SERVED_TOOLS:
            tool = self.engine.tools.get(name)
            if tool is None:  # --tools left it out, or --disallowedTools removed it
                continue
            schema = tool.schema()
            served.append(
                types.Tool(
                    name=name,
                    description=schema["description"],
                    input_schema=schema["input_schema"],
                    annotations=types.ToolAnnotations(read_only_hint=tool.read_only),
                )
            )
        return served

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """One call through the engine's tool runner, refused when it would need a yes."""
        engine = self.engine
        runner = ToolRunner(
            engine.tools, engine.gate, engine.workspace, AbortSignal(), hooks=engine.hooks
        )
        use_id = f"toolu_mcp_{uuid.uuid4().hex[:20]}"
        runner.add({"type": "tool_use", "id": use_id, "name": name, "input": arguments})
        finished: ToolCallFinished | None = None
        async for event in runner.run():
            if isinstance(event, ToolPermissionRequested):
                event.question.answer(headless_answer(event.question.request))
            elif isinstance(event, ToolCallFinished):
                finished = event
        if finished is None:  # the runner always finishes a call it was given
            return _error(f"{name} did not run")
        return _result(finished.result, is_error=finished.is_error)


def build_server(tools: ServedTools, turns: AgentTurns) -> Server[Any]:
    """The MCP server: agentcli's tools and the `agentcli` agent tool."""
    served = {tool.name for tool in tools.listing()}

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[*tools.listing(), AGENT_TOOL])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        if params.name == AGENT_TOOL.name:
            return await turns.run(arguments, progress=_progress(ctx))
        if params.name not in served:
            return _error(f"No such tool: {params.name}")
        return await tools.call(params.name, arguments)

    return Server(
        "agentcli",
        version=__version__,
        instructions="agentcli's coding tools, and `agentcli` to hand a whole task to an agent.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _progress(ctx: ServerRequestContext[Any]) -> Callable[[float, str], Any]:
    async def report(progress: float, message: str) -> None:
        await ctx.session.report_progress(progress, None, message)

    return report


def _result(block: Any, *, is_error: bool) -> types.CallToolResult:
    """A tool_result block as MCP content: its text, and its images."""
    content = block.get("content")
    parts: list[types.ContentBlock] = []
    if isinstance(content, str):
        parts.append(types.TextContent(type="text", text=content))
    elif isinstance(content, list):
        for part in content:
            if part.get("type") == "text":
                parts.append(types.TextContent(type="text", text=str(part.get("text", ""))))
            elif part.get("type") == "image":
                source = part.get("source") or {}
                data = source.get("data", "")
                if isinstance(data, bytes):
                    data = base64.b64encode(data).decode()
                parts.append(
                    types.ImageContent(
                        type="image", data=data, mime_type=source.get("media_type", "")
                    )
                )
    return types.CallToolResult(content=parts, is_error=is_error)


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
