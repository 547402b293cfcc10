"""The set of tools a session offers the model, in a stable order.

The order matters: tool definitions are part of the cached prompt prefix, so
they must be byte-identical from one request to the next.

The built-in tools are offered from their stored schemas and imported when
first used (tools/lazy.py); one whose schema is not stored is imported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from agentcli.tools.base import Tool
from agentcli.tools.lazy import LazyTool, load_tool
from agentcli.tools.stored_schemas import is_stored

# The built-in tools, name and module:class, in the order the model sees them.
BUILTIN_TOOLS = (
    ("Bash", "agentcli.tools.bash:BashTool"),
    ("TaskOutput", "agentcli.tools.background.tools:TaskOutputTool"),
    ("TaskStop", "agentcli.tools.background.tools:TaskStopTool"),
    ("Glob", "agentcli.tools.glob:GlobTool"),
    ("Grep", "agentcli.tools.grep:GrepTool"),
    ("Read", "agentcli.tools.read:ReadTool"),
    ("Edit", "agentcli.tools.edit:EditTool"),
    ("Write", "agentcli.tools.write:WriteTool"),
    ("NotebookEdit", "agentcli.tools.notebook_edit:NotebookEditTool"),
    ("WebFetch", "agentcli.tools.web.fetch_tool:WebFetchTool"),
    ("WebSearch", "agentcli.tools.web.search_tool:WebSearchTool"),
    ("TodoWrite", "agentcli.tools.todo_write:TodoWriteTool"),
    # Claude Code's older names of TaskOutput and TaskStop: a call by them runs, but the
    # model is not offered them (ALIAS_TOOLS).
    ("BashOutput", "agentcli.tools.background.tools:BashOutputTool"),
    ("KillShell", "agentcli.tools.background.tools:KillShellTool"),
)

# Tools accepted when called but never offered: their schemas stay out of requests.
ALIAS_TOOLS = frozenset({"BashOutput", "KillShell"})
# Tools that belong to Bash: `--tools Bash` offers them too (tasks it starts can be read).
BASH_COMPANIONS = frozenset({"TaskOutput", "TaskStop", *ALIAS_TOOLS})

# Offered in every session beside them (tools/exit_plan_mode.py), so stored as well.
EXIT_PLAN_MODE_TOOL = ("ExitPlanMode", "agentcli.tools.exit_plan_mode:ExitPlanModeTool")

# Offered where someone can answer it: the app, an SDK program's can_use_tool, an ACP
# editor; never in -p (wiring/bootstrap.py `Options.person_answers`).
ASK_USER_QUESTION_TOOL = (
    "AskUserQuestion",
    "agentcli.tools.ask_user_question:AskUserQuestionTool",
)

# Every tool whose schema tools/stored_schemas.json holds.
STORED_TOOLS = (*BUILTIN_TOOLS, EXIT_PLAN_MODE_TOOL, ASK_USER_QUESTION_TOOL)


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
            self._schemas = [
                tool.schema() for tool in self._tools.values() if tool.name not in ALIAS_TOOLS
            ]
        return self._schemas


def builtin_tools() -> ToolRegistry:
    return ToolRegistry(builtin_tool(name, where) for name, where in BUILTIN_TOOLS)


def builtin_tool(name: str, where: str, **arguments: Any) -> Tool:
    """The tool, lazy when its schema is stored (tools/stored_schemas.py); `arguments`
    go to its class."""
    if is_stored(name):
        return LazyTool(name, where, **arguments)
    return load_tool(where, **arguments)
