"""TodoWrite: the model keeps a checklist of its work, which the person sees pinned.

Claude Code's tool and input shape: the whole list every time, each item
with `content` (what to do), `status` (pending, in_progress, completed) and
`activeForm` (the same in the present continuous, shown while it is being
done). The tool keeps the current list for the session (`current`); front
ends draw it from the call's display (`TodoDisplay`), so nothing else needs
to ask the tool; a resumed conversation's list is its last accepted call's
(`latest_todos`). Several items in progress at once is allowed: the
description advises one, but a list the model meant is better kept than
refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentcli.tools.base import Tool, ToolContext, ToolResult, Workspace
from agentcli.tools.display import ToolDisplay
from agentcli.tools.inputs import ToolInput

TodoStatus = Literal["pending", "in_progress", "completed"]


class TodoItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    content: str = Field(min_length=1, description="What to do, in the imperative")
    status: TodoStatus
    active_form: str = Field(
        min_length=1,
        alias="activeForm",
        description="The same in the present continuous, shown while it is done",
    )


class TodoWriteInput(ToolInput):
    todos: list[TodoItem] = Field(description="The whole updated list")


class TodoDisplay(ToolDisplay):
    """The list after the call, in order."""

    type: Literal["todos"] = "todos"
    todos: tuple[TodoItem, ...]

    def current(self) -> TodoItem | None:
        """The first item in progress."""
        return next((item for item in self.todos if item.status == "in_progress"), None)

    @property
    def finished(self) -> bool:
        return all(item.status == "completed" for item in self.todos)


class TodoWriteTool(Tool):
    name = "TodoWrite"
    input_model = TodoWriteInput
    read_only: ClassVar[bool] = True  # it changes nothing outside the session
    concurrency_safe: ClassVar[bool] = False  # two updates apply in order
    prompt_file: ClassVar[str | None] = "todo_write.md"

    def __init__(self) -> None:
        self.current: tuple[TodoItem, ...] = ()

    def summary(self, inp: Any, workspace: Workspace) -> str:
        return _counts(inp.todos)

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        self.current = tuple(inp.todos)
        text = (
            f"The todo list is updated ({_counts(inp.todos)}). Keep it current: mark each "
            "item in_progress as you start it and completed as soon as it is done."
        )
        return ToolResult(text, display=TodoDisplay(todos=self.current))


def latest_todos(messages: Iterable[Mapping[str, Any]]) -> tuple[TodoItem, ...]:
    """The list of the conversation's last TodoWrite call the tool accepted (a call it
    refused changed nothing): what a resumed conversation pins again."""
    calls: dict[str, object] = {}  # tool_use id -> input
    latest: tuple[TodoItem, ...] = ()
    for message in messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("name") == TodoWriteTool.name:
                calls[block.get("id")] = block.get("input")
            elif block.get("type") == "tool_result" and not block.get("is_error"):
                latest = _todos_of(calls.get(block.get("tool_use_id")), latest)
    return latest


def _todos_of(inp: object, otherwise: tuple[TodoItem, ...]) -> tuple[TodoItem, ...]:
    """The list `inp` holds; `otherwise` for another tool's result (None) or an input
    this version cannot read."""
    if inp is None:
        return otherwise
    try:
        return tuple(TodoWriteInput.model_validate(inp).todos)
    except ValidationError:
        return otherwise


def _counts(todos: list[TodoItem]) -> str:
    done = sum(item.status == "completed" for item in todos)
    return f"{done}/{len(todos)} done" if todos else "empty"
