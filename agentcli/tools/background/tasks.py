"""The session's background tasks: the commands Bash started with `run_in_background`
(or that Ctrl+B moved there), each a shell leading its own process group.

The engine owns the registry (one per session, on the Workspace, shared with
sub-agents); tools reach it through `ToolContext.workspace`, front ends through
the same object, typed by `TaskBoard`: the list, a look at one task's output,
stopping one, moving the running foreground command here. Nothing here knows a
front end.

A task never outlives agentcli: `stop_all()` ends every one (the engine calls it
when a session ends: exit, `/clear`, the end of a `-p` run, a signal's clean
exit), and a process-wide `atexit` hook SIGKILLs the groups of whatever is still
running when the interpreter goes down another way (an uncaught error). Only a
SIGKILL of agentcli itself leaves them behind.

Task ids are made here and looked up as given; no id ever becomes a path (the
output file's name is made from the id this registry chose).
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import logging
import secrets
import signal
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from agentcli.config.private_files import make_private_dir
from agentcli.tools.background.output_file import (
    MAX_OUTPUT_BYTES,
    BoundedOutput,
    OutputCursor,
    OutputRead,
    tail_text,
)
from agentcli.tools.errors import ToolError
from agentcli.tools.shell_process import Shell, group_alive, shell_exit_code, signal_group

_log = logging.getLogger(__name__)

TaskStatus = Literal["running", "completed", "failed", "killed"]
KILL_GRACE_SECONDS = 2.0
# After the shell exits, how long its output pipe may stay open (a detached process).
_DRAIN_SECONDS = 1.0

# Called when the command is over: the sandbox's clean-up, its notes for the model.
Finish = Callable[[], list[str]]


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """One task as a front end shows it."""

    id: str
    command: str
    description: str | None
    status: TaskStatus
    exit_code: int | None
    started_at: float  # time.time()
    output_path: Path
    output_bytes: int

    @property
    def running(self) -> bool:
        return self.status == "running"


class TaskBoard(Protocol):
    """What a front end may do with the session's tasks (the TUI's /tasks, the status
    bar's count, Ctrl+B)."""

    def tasks(self) -> list[TaskInfo]: ...
    def running_count(self) -> int: ...
    def tail(self, task_id: str, max_bytes: int) -> OutputRead | None: ...
    async def stop(self, task_id: str) -> TaskInfo | None: ...
    def move_foreground(self) -> bool: ...
    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]: ...


class BackgroundTask:
    """One command running (or done) in the background."""

    def __init__(
        self,
        task_id: str,
        command: str,
        description: str | None,
        shell: Shell,
        output: BoundedOutput,
        finish: Finish,
        on_change: Callable[[], None],
        model_start: int = 0,
    ) -> None:
        self.id = task_id
        self.command = command
        self.description = description
        self.started_at = time.time()
        self.output = output
        self.status: TaskStatus = "running"
        self.exit_code: int | None = None
        self.notes: list[str] = []
        self.model_cursor = OutputCursor(output, model_start)  # what TaskOutput returned
        self._shell = shell
        self._finish = finish
        self._on_change = on_change
        self._stopping = False
        self._done = asyncio.Event()
        shell.redirect(output.write)
        self._watcher = asyncio.create_task(self._watch(), name=f"background task {task_id}")

    @property
    def pid(self) -> int:
        return self._shell.pid

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def info(self) -> TaskInfo:
        return TaskInfo(
            self.id,
            self.command,
            self.description,
            self.status,
            self.exit_code,
            self.started_at,
            self.output.path,
            self.output.written,
        )

    async def wait(self, timeout: float | None = None) -> bool:
        """Until the task is over (True), or `timeout` seconds (False)."""
        try:
            await asyncio.wait_for(self._done.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def stop(self, grace: float) -> None:
        """End the whole process group (SIGTERM, then SIGKILL after `grace`)."""
        if self.done:
            return
        self._stopping = True
        await self._shell.stop_now(grace)
        await self._done.wait()

    def kill_now(self) -> None:
        """SIGKILL the group at once (the interpreter is going down)."""
        if not self.done:
            self._stopping = True
            signal_group(self._shell.pid, signal.SIGKILL)

    async def _watch(self) -> None:
        shell = self._shell
        try:
            await shell.proc.wait()
            # What the shell left running in its group goes with it, as in the
            # foreground: nothing runs that no task shows.
            await shell.stop(KILL_GRACE_SECONDS)
            if not await shell.drained(_DRAIN_SECONDS):
                self.notes.append(
                    "(Stopped reading output: a process that detached from the command "
                    "still holds it open.)"
                )
        except asyncio.CancelledError:
            signal_group(shell.pid, signal.SIGKILL)
            raise
        finally:
            shell.close()
            self._end()

    def _end(self) -> None:
        returncode = self._shell.returncode
        if self._stopping:
            self.status = "killed"
        else:
            self.exit_code = shell_exit_code(returncode)
            self.status = "completed" if self.exit_code == 0 else "failed"
        try:
            self.notes.extend(self._finish())
        except Exception:  # the sandbox's clean-up must not keep the task "running"
            _log.exception("background task clean-up failed")
        self.output.finish()
        self._done.set()
        self._on_change()


class _Foreground:
    """The foreground Bash command running now, which Ctrl+B may move here."""

    def __init__(self) -> None:
        self.request: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class BackgroundTasks:
    """The registry: every task of this session, by id, in starting order."""

    def __init__(
        self,
        folder: Callable[[], Path],
        max_output_bytes: int = MAX_OUTPUT_BYTES,
        kill_grace: float = KILL_GRACE_SECONDS,
    ) -> None:
        """`folder`: the private scratch folder (made on demand) the output files go
        in, under `tasks/`."""
        self._folder = folder
        self.max_output_bytes = max_output_bytes
        self.kill_grace = kill_grace
        self._tasks: dict[str, BackgroundTask] = {}
        self._listeners: list[Callable[[], None]] = []
        self._foreground: list[_Foreground] = []
        self._numbers = itertools.count(1)
        _LIVE_REGISTRIES.add(self)

    # -- what the tools use ---------------------------------------------------------

    def get(self, task_id: str) -> BackgroundTask | None:
        """The task of this id, if this session started it; any other string is None."""
        return self._tasks.get(task_id) if isinstance(task_id, str) else None

    def ids(self) -> list[str]:
        return list(self._tasks)

    def start(
        self,
        shell: Shell,
        command: str,
        description: str | None,
        finish: Finish,
        output_so_far: str = "",
    ) -> BackgroundTask:
        """Make `shell` (spawned already, in its own group) a task. `output_so_far`:
        what a foreground command had printed before Ctrl+B moved it."""
        task_id = self._new_id()
        try:
            folder = make_private_dir(self._folder() / "tasks")
            output = BoundedOutput(folder / f"{task_id}.output", self.max_output_bytes)
        except OSError as exc:
            raise ToolError(
                f"Could not make the background task's output file: {exc.strerror or exc}."
            ) from None
        seen = output_so_far.encode("utf-8", "surrogateescape")
        output.write(seen)
        task = BackgroundTask(
            task_id,
            command,
            description,
            shell,
            output,
            finish,
            self._changed,
            model_start=output.written,
        )
        self._tasks[task_id] = task
        self._changed()
        return task

    def _new_id(self) -> str:
        # Short for the person, with a random part so an id of another session or an
        # earlier run never names a task of this one.
        return f"b{next(self._numbers)}{secrets.token_hex(3)}"

    @contextmanager
    def foreground(self) -> Iterator[asyncio.Future[None]]:
        """While a foreground command runs: the future Ctrl+B sets (`move_foreground`)."""
        slot = _Foreground()
        self._foreground.append(slot)
        try:
            yield slot.request
        finally:
            self._foreground.remove(slot)
            if not slot.request.done():
                slot.request.cancel()

    # -- what the front ends use (TaskBoard) -------------------------------------------

    def tasks(self) -> list[TaskInfo]:
        return [task.info() for task in self._tasks.values()]

    def running_count(self) -> int:
        return sum(1 for task in self._tasks.values() if not task.done)

    def tail(self, task_id: str, max_bytes: int) -> OutputRead | None:
        task = self.get(task_id)
        return None if task is None else tail_text(task.output, max_bytes)

    async def stop(self, task_id: str) -> TaskInfo | None:
        """End the task's whole process group; its info after, None for no such task."""
        task = self.get(task_id)
        if task is None:
            return None
        await task.stop(self.kill_grace)
        return task.info()

    def move_foreground(self) -> bool:
        """Ctrl+B: ask the running foreground Bash commands to go on in the background;
        False when none runs."""
        moved = False
        for slot in self._foreground:
            if not slot.request.done():
                slot.request.set_result(None)
                moved = True
        return moved

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` when a task starts or ends; returns the undo."""
        self._listeners.append(listener)

        def undo() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return undo

    def _changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                _log.exception("background task listener failed")

    # -- the end ------------------------------------------------------------------------

    async def stop_all(self) -> int:
        """End every running task (exit, /clear, the end of a run); how many were
        running."""
        running = [task for task in self._tasks.values() if not task.done]
        await asyncio.gather(*(task.stop(self.kill_grace) for task in running))
        return len(running)

    def kill_all_now(self) -> None:
        """SIGKILL every running task's group at once, without the event loop."""
        for task in self._tasks.values():
            task.kill_now()

    def any_alive(self) -> bool:
        """Whether a process of any task's group still runs (for tests and /status)."""
        return any(group_alive(task.pid) for task in self._tasks.values())


_LIVE_REGISTRIES: weakref.WeakSet[BackgroundTasks] = weakref.WeakSet()


@atexit.register
def _kill_leftovers() -> None:
    """The last resort: whatever a session did not stop goes with the interpreter."""
    for registry in list(_LIVE_REGISTRIES):
        registry.kill_all_now()
