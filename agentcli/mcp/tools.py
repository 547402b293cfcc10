"""A server's tool as an agentcli Tool, named `mcp__<server>__<tool>`.

The model sees the server's own description and input schema; the server
validates the arguments (the input model takes any object). A tool the
server marks `readOnlyHint` may run beside other concurrency-safe calls; the
others run alone. Either way an MCP tool asks before it runs unless a rule
allows it (permissions/policy.py): the hint is the server's word, not ours.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from pydantic import ConfigDict

from agentcli.tools.base import Tool, ToolContext, ToolResult, Workspace
from agentcli.tools.inputs import ToolInput

SUMMARY_CHARS = 100


class McpInput(ToolInput):
    """Whatever object the model sends: the server checks it against its schema."""

    model_config = ConfigDict(extra="allow", defer_build=True)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What a server lists about one tool."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool = False  # annotations.readOnlyHint
    title: str | None = None


class ToolCaller(Protocol):
    """Calls a tool on one server (agentcli/mcp/connection.py): a result, never an
    exception, for every way a call can fail but cancellation."""

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> ToolResult: ...


class McpTool(Tool):
    input_model: ClassVar[type[ToolInput]] = McpInput

    def __init__(self, name: str, server: str, spec: ToolSpec, caller: ToolCaller) -> None:
        self.name = name
        self.server = server
        self.spec = spec
        self._caller = caller

    @property
    def description(self) -> str:
        return self.spec.description

    def is_read_only(self, inp: Any) -> bool:
        return self.spec.read_only

    def is_concurrency_safe(self, inp: Any) -> bool:
        return self.spec.read_only

    def summary(self, inp: Any, workspace: Workspace) -> str:
        """`key: "value", n: 3`: the arguments, short, for the pane's header."""
        arguments = _arguments(inp)
        text = ", ".join(
            f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items()
        )
        return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"

    def schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": object_schema(self.spec.input_schema),
        }

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        return await self._caller.call_tool(self.spec.name, _arguments(inp))


def _arguments(inp: Any) -> dict[str, Any]:
    extra = getattr(inp, "model_extra", None)
    return dict(extra) if extra else {}


def object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The server's schema as the API takes it: an object schema at the root.

    MCP requires `"type": "object"` there; a server that leaves it out still
    works rather than failing every request of the session."""
    if schema.get("type") == "object":
        return schema
    return {**schema, "type": "object"}
