"""The set of tools a session offers the model, in a stable order.

The order matters: tool definitions are part of the cached prompt prefix, so
they must be byte-identical from one request to the next.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from importlib import import_module
from typing import Any

from agentcli.tools.base import Tool

# module:class of the built-in tools, in the order the model sees them.
BUILTIN_TOOLS = (
    "agentcli.tools.bash:BashTool",
    "agentcli.tools.glob:GlobTool",
    "agentcli.tools.grep:GrepTool",
    "agentcli.tools.read:ReadTool",
    "agentcli.tools.edit:EditTool",
    "agentcli.tools.write:WriteTool",
    "agentcli.tools.web.fetch_tool:WebFetchTool",
    "agentcli.tools.web.search_tool:WebSearchTool",
    "agentcli.tools.todo_write:TodoWriteTool",
)


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool
        self._schemas: list[dict[str, Any]] | None = None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def without(self, names: Iterable[str]) -> ToolRegistry:
        """A registry without these tools (a bare deny rule hides a tool from the model)."""
        drop = set(names)
        return ToolRegistry(t for t in self._tools.values() if t.name not in drop)

    def schemas(self) -> list[dict[str, Any]]:
        if self._schemas is None:
            self._schemas = [tool.schema() for tool in self._tools.values()]
        return self._schemas


def builtin_tools() -> ToolRegistry:
    tools = []
    for spec in BUILTIN_TOOLS:
        module_name, class_name = spec.split(":")
        tools.append(getattr(import_module(module_name), class_name)())
    return ToolRegistry(tools)
