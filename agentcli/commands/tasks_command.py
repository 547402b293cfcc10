"""`/tasks`: the session's background commands (tools/background/), on a screen of the
app's (`CommandHost.show_tasks`): each one's output, and stopping it.

With no task yet it says how one starts (a Bash call with `run_in_background`, or
Ctrl+B while a command runs). The list's text is a plain function of the tasks
(`tasks_text`), shared with the screen's header, so it is tested without the app.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from agentcli.commands.registry import NOT_READY, CommandContext, command

if TYPE_CHECKING:
    from agentcli.tools.background.tasks import TaskInfo

NO_TASKS = (
    "No background tasks in this session. The model starts one with a Bash call that "
    "sets `run_in_background`; Ctrl+B moves a running command there."
)


def task_line(task: TaskInfo, now: float | None = None) -> str:
    """`b1a2b3c · running · 12s · npm run dev` (the exit code once it is over)."""
    seconds = int((now if now is not None else time.time()) - task.started_at)
    state = task.status if task.exit_code is None else f"{task.status} (exit {task.exit_code})"
    lines = task.command.strip().splitlines()
    label = task.description or (lines[0] + (" …" if len(lines) > 1 else "") if lines else "")
    return f"{task.id} · {state} · {_age(seconds)} · {label}"


def _age(seconds: int) -> str:
    if seconds < 60:
        return f"{max(seconds, 0)}s"
    minutes, rest = divmod(seconds, 60)
    return f"{minutes}m {rest}s" if minutes < 60 else f"{minutes // 60}h {minutes % 60}m"


def tasks_text(tasks: list[TaskInfo]) -> str:
    running = sum(1 for task in tasks if task.running)
    return f"{len(tasks)} background task(s), {running} running"


@command("tasks", "List the background tasks: see each one's output, stop it")
async def tasks_command(ctx: CommandContext) -> None:
    if ctx.engine is None:
        ctx.error(NOT_READY)
        return
    board = ctx.engine.workspace.background_tasks()
    if not board.tasks():
        ctx.output(NO_TASKS)
        return
    ctx.app().show_tasks(board)
