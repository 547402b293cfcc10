"""The `statusLine` command: run it with the session's state, show its first line.

Claude Code's `"statusLine": {"type": "command", "command": "...", "padding": 0}`:
the command gets the session as JSON on stdin (`StatusInput.payload()`, Claude
Code's field names) and the first line it prints becomes a line of the app's
status area, its colours kept and every other control dropped
(core/terminal_text.py). It runs:

- on change: `update()` with the same input (the session's duration aside) does
  nothing; with new input, a run starts at most every `min_gap_s` (300 ms, as
  Claude Code), the latest input winning while one runs or waits;
- through the shell, in the project folder, with the environment hooks get
  (config/credentials.py `child_env`: no API key), in a process group of its own;
- within `timeout_s`: a command that takes longer is killed (its whole group) and
  its line left as it was. Its output is read up to `MAX_OUTPUT_BYTES`: one that
  writes more is stopped there and its first line shown. A child it leaves holding
  the output (`setsid daemon &`) never keeps a run going (core/child_process.py).

Nothing here waits on the caller's behalf: `update()` returns at once and the
command runs as a task of the running event loop, so typing never waits for it.
A command that cannot start, fails (its line is blanked, as in Claude Code) or
times out is reported once through `problem`; it is still run on the next change.

No Textual and no engine here: the app's glue (frontends/tui/status_feed.py) makes
the input from the engine and shows the line.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.text import Text

from agentcli.config.credentials import child_env
from agentcli.core.child_process import run_child
from agentcli.core.terminal_text import terminal_text

MIN_GAP_S = 0.3
TIMEOUT_S = 5.0
MAX_OUTPUT_BYTES = 64 * 1024
MAX_LINE_CHARS = 1000


@dataclass(frozen=True, slots=True)
class ContextWindow:
    size: int
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    @property
    def used(self) -> int:
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens


@dataclass(frozen=True, slots=True)
class StatusInput:
    """What the command is told of the session (Claude Code's fields)."""

    session_id: str
    transcript_path: str | None
    cwd: str
    project_dir: str
    model_id: str
    model_display_name: str
    version: str
    total_cost_usd: float | None  # None: a model's prices are unknown
    context_window: ContextWindow
    effort: str | None = None  # the session's effort level, when one is set
    # Not a change of its own: the input changes with the conversation, not the clock.
    total_duration_ms: int = field(default=0, compare=False)

    def payload(self) -> dict[str, Any]:
        window = self.context_window
        used_percent = min(window.used * 100 / window.size, 100.0) if window.size else 0.0
        return {
            "hook_event_name": "Status",
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": self.cwd,
            "model": {"id": self.model_id, "display_name": self.model_display_name},
            "workspace": {"current_dir": self.cwd, "project_dir": self.project_dir},
            "version": self.version,
            "output_style": {"name": "default"},
            "cost": {
                "total_cost_usd": self.total_cost_usd,
                "total_duration_ms": self.total_duration_ms,
            },
            "context_window": {
                "context_window_size": window.size,
                "current_usage": {
                    "input_tokens": window.input_tokens,
                    "output_tokens": window.output_tokens,
                    "cache_creation_input_tokens": window.cache_creation_input_tokens,
                    "cache_read_input_tokens": window.cache_read_input_tokens,
                },
                "used_percentage": round(used_percent, 1),
                "remaining_percentage": round(100 - used_percent, 1),
            },
            "exceeds_200k_tokens": window.used > 200_000,
            "effort": {"level": self.effort},
        }


def first_line(output: bytes) -> Text:
    """The first line of a command's output, safe to show: colours kept, other
    controls dropped, at most `MAX_LINE_CHARS` characters."""
    text = output.decode("utf-8", errors="replace")
    line = text.split("\n", 1)[0].removesuffix("\r")[:MAX_LINE_CHARS]
    shown = terminal_text(line)
    shown.rstrip()
    return shown


class StatusCommand:
    """Runs one status-line command as the session changes (see the module's doc)."""

    def __init__(
        self,
        command: str,
        cwd: Path,
        show: Callable[[Text], None],
        problem: Callable[[str], None],
        *,
        env: dict[str, str] | None = None,
        min_gap_s: float = MIN_GAP_S,
        timeout_s: float = TIMEOUT_S,
    ) -> None:
        self.command = command
        self.cwd = cwd
        self._show = show
        self._problem = problem
        self._env = env or {}
        self.min_gap_s = min_gap_s
        self.timeout_s = timeout_s
        self.runs = 0  # commands started so far
        self._last: StatusInput | None = None  # the input of the latest run
        self._pending: StatusInput | None = None
        self._task: asyncio.Task[None] | None = None
        self._wait: asyncio.TimerHandle | None = None
        self._started_at = float("-inf")
        self._reported = False
        self._closed = False

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def update(self, data: StatusInput, *, force: bool = False) -> None:
        """Run the command for `data` when it differs from the last run's (or `force`),
        as soon as the gap since the last start allows."""
        if self._closed or (not force and data == (self._pending or self._last)):
            return
        self._pending = data
        self._kick()

    def refresh(self) -> None:
        """Run again with the latest input (the `refreshInterval` timer)."""
        latest = self._pending or self._last
        if latest is not None:
            self.update(latest, force=True)

    def _kick(self) -> None:
        if self.running or self._wait is not None or self._pending is None:
            return
        loop = asyncio.get_running_loop()
        gap = self._started_at + self.min_gap_s - loop.time()
        if gap > 0:
            self._wait = loop.call_later(gap, self._start)
        else:
            self._start()

    def _start(self) -> None:
        self._wait = None
        data, self._pending = self._pending, None
        if data is None or self._closed:
            return
        self._last = data
        self._started_at = asyncio.get_running_loop().time()
        self.runs += 1
        self._task = asyncio.create_task(self._run(data))
        self._task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            self._report(f"it failed: {task.exception()}")
        if not self._closed:
            self._kick()

    async def _run(self, data: StatusInput) -> None:
        try:
            done = await run_child(
                self.command,
                stdin=json.dumps(data.payload()).encode(),
                cwd=self.cwd,
                env={**child_env(self._env), "AGENTCLI_PROJECT_DIR": str(self.cwd)},
                timeout_s=self.timeout_s,
                limit=MAX_OUTPUT_BYTES,
                stderr="drop",
                stop_at_limit=True,  # more than a status line: stopped, its first line shown
            )
        except OSError as exc:
            self._report(f"it could not start: {exc}")
            return
        if done.timed_out:
            self._report(f"it did not finish within {self.timeout_s:g} s and was stopped")
            return
        if done.returncode != 0 and not done.cut:
            self._show(Text())
            self._report(f"it exited with status {done.returncode}")
            return
        self._show(first_line(done.stdout))

    def _report(self, what: str) -> None:
        if not self._reported:
            self._reported = True
            self._problem(f"The status line command ({self.command}): {what}.")

    async def aclose(self) -> None:
        """Stop waiting and stop the running command, if any."""
        self._closed = True
        if self._wait is not None:
            self._wait.cancel()
            self._wait = None
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
