"""Tools the API runs on its own side, such as web search.

The model calls them and the API runs them while the answer streams: the
call (`server_tool_use`) and its result come back as content blocks of the
assistant message, and the client only replays them in later requests. So
such a tool is offered, or not, per request: to a provider that runs it
(`providers`), when the permission rules let it run at all (nobody can be
asked in the middle of the API's turn; permissions/web_rules.py). It never
runs here.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentcli.tools.base import Tool, ToolContext, ToolError, ToolResult


class ServerTool(Tool):
    """Subclass with `name` (the rules' name), `definition` (what the request's
    `tools` list carries) and the providers that run it."""

    definition: ClassVar[dict[str, Any]]
    providers: ClassVar[frozenset[str]] = frozenset({"anthropic"})
    read_only: ClassVar[bool] = True

    def schema(self) -> dict[str, Any]:
        return dict(self.definition)

    def offered_by(self, provider_name: str) -> bool:
        return provider_name in self.providers

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        raise ToolError(f"{self.name} runs on the API's side; it cannot be called as a local tool.")
