"""TaskOutput and TaskStop: the model reads and ends its background commands.

Claude Code's tools and input fields: `TaskOutput {task_id, block, timeout}`
(block defaults to true; timeout in ms, default 30000, at most 600000) returns the
output new since the last read with the task's status and, when it is over, its
exit code; `TaskStop {task_id}` ends the task's whole process group. Its older
names are accepted as well (not offered: the model sees only the new ones):
`BashOutput {bash_id, filter}` (never waits; `filter`, a regular expression,
keeps the matching lines, and the others are consumed) and `KillShell {shell_id}`.

Both only read or end what this session started, so they never ask: an id from
the model is looked up in the session's registry as given, and any other string
(another session's id, a path) is "no such task".
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from agentcli.tools.background.line_filter import BUDGET_S as FILTER_BUDGET_S
from agentcli.tools.background.line_filter import FilterTooSlow, LineFilter
from agentcli.tools.background.output_file import OutputRead
from agentcli.tools.background.tasks import BackgroundTask, BackgroundTasks
from agentcli.tools.base import Tool, ToolContext, ToolError, ToolResult, Workspace
from agentcli.tools.inputs import ToolInput
from agentcli.tools.shell_output import MAX_OUTPUT_CHARS

DEFAULT_WAIT_MS = 30_000
MAX_WAIT_MS = 600_000
MAX_FILTER_CHARS = 1000


class TaskOutputInput(ToolInput):
    task_id: str = Field(description="The task ID to get output from")
    block: bool = Field(True, description="Whether to wait for completion")
    timeout: float = Field(DEFAULT_WAIT_MS, ge=0, le=MAX_WAIT_MS, description="Max wait time in ms")


class TaskStopInput(ToolInput):
    task_id: str = Field(description="The ID of the background task to stop")


class BashOutputInput(ToolInput):
    bash_id: str = Field(description="The ID of the background shell to retrieve output from")
    filter: str | None = Field(
        None,
        max_length=MAX_FILTER_CHARS,
        description=(
            "Optional regular expression to filter the output lines. Only lines matching "
            "this regex will be included in the result. Any lines that do not match will "
            "no longer be available to read."
        ),
    )


class KillShellInput(ToolInput):
    shell_id: str = Field(description="The ID of the background shell to kill")


class _TaskTool(Tool):
    """A tool about one of the session's tasks: safe, since it only touches what this
    session started."""

    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = True

    def summary(self, inp: Any, workspace: Workspace) -> str:
        return str(_id_of(inp))


def _id_of(inp: Any) -> str:
    for field in ("task_id", "bash_id", "shell_id"):
        value = getattr(inp, field, None)
        if value is not None:
            return str(value)
    return ""


def find_task(ctx: ToolContext, task_id: str) -> tuple[BackgroundTasks, BackgroundTask]:
    """The session's task of this id, or the error that says which ids there are."""
    board = ctx.workspace.background_tasks()
    task = board.get(task_id)
    if task is None:
        known = ", ".join(board.ids())
        where = f" The tasks of this session: {known}." if known else " None has been started."
        raise ToolError(f"No background task with ID {task_id!r}.{where}")
    return board, task


class TaskOutputTool(_TaskTool):
    name = "TaskOutput"
    input_model = TaskOutputInput

    async def run(self, inp: TaskOutputInput, ctx: ToolContext) -> ToolResult:
        _board, task = find_task(ctx, inp.task_id)
        waited_out = False
        if inp.block and not task.done:
            waited_out = not await task.wait(inp.timeout / 1000)
        return ToolResult(report(task, retrieval="timeout" if waited_out else "success"))


class BashOutputTool(_TaskTool):
    name = "BashOutput"
    input_model = BashOutputInput

    async def run(self, inp: BashOutputInput, ctx: ToolContext) -> ToolResult:
        if inp.filter is None:
            _board, task = find_task(ctx, inp.bash_id)
            return ToolResult(report(task, retrieval="success"))
        pattern = LineFilter(inp.filter)
        _board, task = find_task(ctx, inp.bash_id)
        new, done = _read_new(task)
        notes: list[str] = []
        try:
            text = await pattern.matching_lines(new.text)
        except FilterTooSlow:
            text = new.text
            notes.append(
                f"[The filter took more than {FILTER_BUDGET_S:g} s on this output (a pattern "
                "such as (a+)+ can backtrack without end), so the output is not filtered]"
            )
        return ToolResult(layout(task, "success", new, text, done, notes))


class TaskStopTool(_TaskTool):
    name = "TaskStop"
    input_model = TaskStopInput

    async def run(self, inp: TaskStopInput, ctx: ToolContext) -> ToolResult:
        return await stop_task(ctx, inp.task_id)


class KillShellTool(_TaskTool):
    name = "KillShell"
    input_model = KillShellInput

    async def run(self, inp: KillShellInput, ctx: ToolContext) -> ToolResult:
        return await stop_task(ctx, inp.shell_id)


async def stop_task(ctx: ToolContext, task_id: str) -> ToolResult:
    board, task = find_task(ctx, task_id)
    if task.done:
        raise ToolError(f"Task {task.id} is not running (status: {task.status}); nothing to stop.")
    await board.stop(task.id)
    return ToolResult(f"Stopped task {task.id} ({task.command}): it and every process it started.")


def report(task: BackgroundTask, retrieval: str) -> str:
    """The task's status and its output new since the last read, as Claude Code lays
    it out (tagged parts)."""
    new, done = _read_new(task)
    return layout(task, retrieval, new, new.text, done)


def _read_new(task: BackgroundTask) -> tuple[OutputRead, bool]:
    """The output the model has not read yet, and whether the task is over."""
    done = task.done  # read before the output: a task over has all of it in the file
    return task.model_cursor.read_new(final=done), done


def layout(
    task: BackgroundTask,
    retrieval: str,
    new: OutputRead,
    text: str,
    done: bool,
    notes: list[str] | None = None,
) -> str:
    """The tagged parts: status, exit code, `text` (the new output, or what of it was
    kept) with `notes` before it."""
    notes = list(notes or [])
    parts = [
        f"<retrieval_status>{retrieval}</retrieval_status>",
        f"<task_id>{task.id}</task_id>",
        "<task_type>local_bash</task_type>",
        f"<status>{task.status}</status>",
    ]
    if task.exit_code is not None:
        parts.append(f"<exit_code>{task.exit_code}</exit_code>")
    if new.missed_bytes:
        notes.append(
            f"[{new.missed_bytes} bytes of output came and were dropped before this read: "
            f"the output file keeps only its last {task.output.max_bytes} bytes]"
        )
    if len(text) > MAX_OUTPUT_CHARS:
        cut = len(text) - MAX_OUTPUT_CHARS
        text = text[cut:]
        notes.append(
            f"[{cut} characters of this new output are not shown; the output file "
            f"{task.output.path} holds them]"
        )
    body = "\n".join([*notes, text.rstrip("\n")]) if notes else text.rstrip("\n")
    parts.append(f"<output>\n{body}\n</output>" if body else "<output>(no new output)</output>")
    if done:
        parts.extend(task.notes)
    elif retrieval == "timeout":
        parts.append("(Still running: read again later, or stop it with TaskStop.)")
    return "\n".join(parts)
