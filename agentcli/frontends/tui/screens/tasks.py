"""`/tasks`: the session's background commands, the highlighted one's output, stopping it.

A list of every task (id, status or exit code, age, command); under it the last
lines of the highlighted task's output, followed as it grows while the screen is
open. The keys:

    k  stop the highlighted task (it and every process it started)
    ↑↓ select       Esc / q  close

The screen reads the session's tasks through the engine's `TaskBoard`
(tools/background/tasks.py): it redraws when one starts or ends, and stopping runs
in a worker so a command slow to die never freezes the screen. Reading output here
does not move the model's place in it (TaskOutput still returns what it has not
seen).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentcli.commands.tasks_command import task_line, tasks_text
from agentcli.core.terminal_text import visible_controls
from agentcli.frontends.tui.widgets.choice_list import ChoiceList

if TYPE_CHECKING:
    from agentcli.tools.background.tasks import TaskBoard, TaskInfo

# How much of the highlighted task's output the screen shows (its end).
TAIL_BYTES = 16 * 1024
TAIL_LINES = 40
FOLLOW_SECONDS = 0.5


class TasksScreen(ModalScreen[None]):
    BINDINGS = [  # noqa: RUF012
        Binding("escape,q", "close", "Close"),
        Binding("k", "stop", "Stop", show=False),
    ]

    DEFAULT_CSS = """
    TasksScreen { align: center middle; }
    TasksScreen > Vertical {
        width: 90%; max-width: 140; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    TasksScreen #tasks-title { text-style: bold; }
    TasksScreen OptionList { height: auto; max-height: 10; border: none; }
    TasksScreen #tasks-output-scroll { height: auto; max-height: 24; }
    TasksScreen #tasks-keys, TasksScreen #tasks-message { color: $text-muted; }
    """

    def __init__(self, board: TaskBoard) -> None:
        super().__init__()
        self.board = board
        self.tasks: list[TaskInfo] = []
        self.message = ""
        self._undo: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Background tasks", id="tasks-title")
            yield ChoiceList(id="tasks-list")
            with VerticalScroll(id="tasks-output-scroll"):
                yield Static("", id="tasks-output")
            yield Static("k stop · ↑↓ select · Esc close", id="tasks-keys")
            yield Static("", id="tasks-message")

    def on_mount(self) -> None:
        self._undo = self.board.subscribe(self.refresh_tasks)
        self.refresh_tasks()
        self.set_interval(FOLLOW_SECONDS, self._show_selected)
        self.query_one(OptionList).focus()

    def on_unmount(self) -> None:
        if self._undo is not None:
            self._undo()

    # -- what is shown ----------------------------------------------------------------

    def refresh_tasks(self) -> None:
        """Redraw from the board, keeping the highlighted task."""
        current = self.selected
        self.tasks = self.board.tasks()
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(
            [Option(visible_controls(task_line(task)), id=task.id) for task in self.tasks]
        )
        ids = [task.id for task in self.tasks]
        if ids:
            keep = current.id if current is not None and current.id in ids else ids[-1]
            options.highlighted = ids.index(keep)
        self.query_one("#tasks-title", Static).update(f"Background tasks: {tasks_text(self.tasks)}")
        self._show_selected()

    @property
    def selected(self) -> TaskInfo | None:
        if not self.tasks:
            return None
        index = self.query_one(OptionList).highlighted
        return self.tasks[index] if index is not None and index < len(self.tasks) else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_selected()

    def _show_selected(self) -> None:
        task = self.selected
        body = Text("No background task.") if task is None else self._output_of(task)
        self.query_one("#tasks-output", Static).update(body)

    def _output_of(self, task: TaskInfo) -> Text:
        tail = self.board.tail(task.id, TAIL_BYTES)
        text = Text()
        text.append(f"$ {visible_controls(task.command)}\n", style="bold")
        text.append(f"output: {task.output_path}\n", style="dim")
        if tail is None or not tail.text:
            text.append("(no output yet)" if task.running else "(no output)", style="dim")
            return text
        lines = tail.text.splitlines()
        earlier = tail.missed_bytes > 0 or len(lines) > TAIL_LINES
        if earlier:
            text.append("… (earlier output in the file above)\n", style="dim")
        text.append(visible_controls("\n".join(lines[-TAIL_LINES:])))
        return text

    # -- what the person does ----------------------------------------------------------

    def action_close(self) -> None:
        self.dismiss(None)

    def action_stop(self) -> None:
        task = self.selected
        if task is None:
            return
        if not task.running:
            self._say(f"{task.id} is not running ({task.status}).")
            return
        self._say(f"Stopping {task.id}…")
        self.run_worker(self._stop(task.id), group="tasks-stop", exit_on_error=False)

    async def _stop(self, task_id: str) -> None:
        info = await self.board.stop(task_id)
        self._say(f"Stopped {task_id}." if info is not None else f"No task {task_id}.")
        self.refresh_tasks()

    def _say(self, message: str) -> None:
        self.message = message
        self.query_one("#tasks-message", Static).update(visible_controls(message))
