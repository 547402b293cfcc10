"""A built-in tool whose module is imported the first time the tool is used.

The first request already offers every tool (its name, description and input
schema), but most runs call few tools and a one-shot `-p hi` calls none, while
importing them all costs a large part of a start: WebFetch alone brings the
HTML converter's front, the address checks and the page cache, Bash its
output handling and read-only command table, each tool a pydantic model to
build. So the registry holds a `LazyTool` per built-in tool: its definition
comes from the tool's prompt file and the input schema stored beside the code
(tools/stored_schemas.py, checked against the real models by the tests), and
anything else (validating a call, asking permission, running it) imports the
tool's module and hands the question to the real tool.

Not lazy: tools whose class says what a request offers (`ServerTool`, such as
WebSearch, never runs here), and tools made per session with arguments (MCP's,
Skill, Task, StructuredOutput).
"""

from __future__ import annotations

import threading
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from agentcli.tools.base import Tool, ToolContext, ToolResult, Workspace, load_prompt
from agentcli.tools.stored_schemas import stored_input_schema, stored_prompt_file

if TYPE_CHECKING:
    from agentcli.tools.display import ToolDisplay
    from agentcli.tools.inputs import ToolInput  # noqa: F401 (named in a string: pydantic)

T = TypeVar("T")


def load_tool(where: str, **arguments: Any) -> Tool:
    """The tool of class `where` ("module:Class"), its module imported now; `arguments`
    go to the class."""
    module_name, class_name = where.split(":")
    tool: Tool = getattr(import_module(module_name), class_name)(**arguments)
    return tool


class _FromRealTool(Generic[T]):
    """A class attribute of `Tool` (input_model, read_only...) read from the real tool,
    which is loaded for it."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.attribute = name

    @overload
    def __get__(self, tool: None, owner: type) -> _FromRealTool[T]: ...

    @overload
    def __get__(self, tool: LazyTool, owner: type) -> T: ...

    def __get__(self, tool: LazyTool | None, owner: type) -> T | _FromRealTool[T]:
        if tool is None:
            return self
        value: T = getattr(tool.real(), self.attribute)
        return value


class LazyTool(Tool):
    """`Tool` for the built-in tool `name`, whose class is `where` ("module:Class")."""

    input_model = _FromRealTool["type[ToolInput]"]()
    read_only = _FromRealTool[bool]()
    concurrency_safe = _FromRealTool[bool]()
    permission_title = _FromRealTool[str]()

    def __init__(self, name: str, where: str, **arguments: Any) -> None:
        """`arguments` go to the tool's class when it is loaded (the Bash tool's
        `read_only_lines`, which the composition root hands it)."""
        self.name = name
        self.where = where
        self.arguments = arguments
        self._real: Tool | None = None
        self._loading = threading.Lock()

    @property
    def is_loaded(self) -> bool:
        return self._real is not None

    def real(self) -> Tool:
        """The tool itself, its module imported on the first call (once, even from two
        threads at the same time)."""
        if self._real is None:
            with self._loading:
                if self._real is None:
                    tool = load_tool(self.where, **self.arguments)
                    if tool.name != self.name:
                        raise RuntimeError(
                            f"{self.where} is named {tool.name!r}, not {self.name!r}"
                        )
                    self._real = tool
        return self._real

    # -- what the first request needs, without the tool's module ---------------------

    @property
    def description(self) -> str:
        return load_prompt(stored_prompt_file(self.name))

    def schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": stored_input_schema(self.name),
        }

    # -- everything else: the real tool's -------------------------------------------

    def is_read_only(self, inp: Any) -> bool:
        return self.real().is_read_only(inp)

    def is_concurrency_safe(self, inp: Any) -> bool:
        return self.real().is_concurrency_safe(inp)

    def summary(self, inp: Any, workspace: Workspace) -> str:
        return self.real().summary(inp, workspace)

    def target_path(self, inp: Any, workspace: Workspace) -> Path | None:
        return self.real().target_path(inp, workspace)

    def files_written(self, inp: Any, workspace: Workspace) -> list[Path]:
        return self.real().files_written(inp, workspace)

    def permission_subject(self, inp: Any) -> str | None:
        return self.real().permission_subject(inp)

    async def permission_preview(self, inp: Any, workspace: Workspace) -> ToolDisplay | None:
        return await self.real().permission_preview(inp, workspace)

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        return await self.real().run(inp, ctx)

    def __repr__(self) -> str:
        state = "loaded" if self.is_loaded else "not loaded"
        return f"LazyTool({self.name!r}, {self.where!r}, {state})"
