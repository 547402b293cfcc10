"""The model's tools for MCP resources, under Claude Code's names.

ListMcpResourcesTool lists what the connected servers offer (one server, or
all); ReadMcpResourceTool reads one resource by server and URI, its text as
text blocks and its images as image blocks (results.py). Both only read, so
they run beside other safe calls and need no permission; they are offered
while some connected server has resources.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Protocol

from agentcli.core.messages import ResultPart
from agentcli.mcp.errors import McpCallError
from agentcli.mcp.status import ResourceInfo
from agentcli.tools.base import Tool, ToolContext, ToolError, ToolResult, Workspace
from agentcli.tools.inputs import ToolInput


class ResourceSource(Protocol):
    """What the tools read from (the manager)."""

    def resources(self) -> list[ResourceInfo]: ...

    async def read_resource(self, server: str, uri: str) -> list[ResultPart]: ...


class ListResourcesInput(ToolInput):
    server: str | None = None


class ReadResourceInput(ToolInput):
    server: str
    uri: str


class ListMcpResourcesTool(Tool):
    name = "ListMcpResourcesTool"
    input_model: ClassVar[type[ToolInput]] = ListResourcesInput
    read_only = True
    concurrency_safe = True

    def __init__(self, source: ResourceSource) -> None:
        self._source = source

    @property
    def description(self) -> str:
        return (
            "Lists the resources (files, records, documents) the connected MCP servers offer: "
            "each with its server, uri, name, mimeType and description. Give `server` to list "
            "one server's only. Read one with ReadMcpResourceTool."
        )

    def summary(self, inp: Any, workspace: Workspace) -> str:
        return str(inp.server or "")

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        found = [r for r in self._source.resources() if inp.server in (None, r.server)]
        if not found:
            where = f" on the server {inp.server}" if inp.server else ""
            return ToolResult(f"No resources found{where}.")
        return ToolResult(json.dumps([_listed(r) for r in found], ensure_ascii=False, indent=1))


class ReadMcpResourceTool(Tool):
    name = "ReadMcpResourceTool"
    input_model: ClassVar[type[ToolInput]] = ReadResourceInput
    read_only = True
    concurrency_safe = True

    def __init__(self, source: ResourceSource) -> None:
        self._source = source

    @property
    def description(self) -> str:
        return (
            "Reads one resource of a connected MCP server, by the server's name and the "
            "resource's uri (ListMcpResourcesTool lists them)."
        )

    def summary(self, inp: Any, workspace: Workspace) -> str:
        return f"{inp.server}: {inp.uri}"

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        try:
            return ToolResult(await self._source.read_resource(inp.server, inp.uri))
        except McpCallError as exc:
            raise ToolError(str(exc)) from None


def _listed(resource: ResourceInfo) -> dict[str, Any]:
    listed: dict[str, Any] = {"server": resource.server, "uri": resource.uri, "name": resource.name}
    if resource.mime_type:
        listed["mimeType"] = resource.mime_type
    if resource.description:
        listed["description"] = resource.description
    return listed
