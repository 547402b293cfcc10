"""The status line (while a turn runs) and the status bar (always).

The status line shows a spinner, what the turn is doing, elapsed time, output
tokens and "esc to interrupt"; it ticks on a timer only while a turn runs. The status
bar shows model, permission mode (bypassPermissions in red, "everything asks"
while protection is uncertain, "sandboxed" while Bash runs in the sandbox),
context used, how far it is from the auto-compaction threshold ("auto-compact
off" when the settings turn it off), session cost and, while any runs, how many
background tasks run (redrawn by itself when one starts or ends); the app
calls `refresh_from(engine)` after each event that changes them. For a moment
it may show a key's hint instead ("Press Esc again to rewind"): while the hint
is set it is what the bar draws, and clearing it brings the summary back, so
nothing else can leave a stale hint on screen.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
MODE_LABELS = {
    "default": "default",
    "acceptEdits": "accept edits",
    "plan": "plan mode",
    "bypassPermissions": "bypass permissions",
}
LOCKED_LABEL = "everything asks"
SANDBOX_LABEL = "sandboxed"


class StatusLine(Static):
    """What the turn is doing, derived from what is going on rather than set and
    forgotten: Interrupting (after Esc), else Running <the latest tool still
    running>, else the phase of the request (Thinking, Writing; Working while a
    message is made). While a permission question is open the line is not shown
    (as in Claude Code): the question says what the turn waits for, and its row
    goes to the question on a small screen. A finished tool takes its part away
    and an answered question brings the line back, by themselves."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.started: float | None = None
        self.phase = "Working"
        self.output_tokens = 0
        self.running: dict[str, str] = {}  # tool_use_id -> tool name, in starting order
        self.questions: set[object] = set()  # the permission questions open now
        self.stopping = False
        self._frame = 0
        self._timer: Timer | None = None
        self.display = False

    @property
    def verb(self) -> str:
        if self.stopping:
            return "Interrupting"
        if self.running:
            return f"Running {next(reversed(self.running.values()))}"
        return self.phase

    def start(self, phase: str = "Working") -> None:
        self.started = time.monotonic()
        self.phase = phase
        self.output_tokens = 0
        self.running.clear()
        self.questions.clear()
        self.stopping = False
        self._show()
        if self._timer is None:
            self._timer = self.set_interval(0.1, self._tick)
        self._tick()

    def set_phase(self, phase: str) -> None:
        """A new phase shows at once. The same one again (every streamed chunk says
        "Writing") waits for the next tick, ten a second, which shows the token
        count too: redrawing per chunk cost more than the rest of the line's work."""
        if phase != self.phase:
            self.phase = phase
            self._draw()

    def tool_running(self, tool_use_id: str, name: str) -> None:
        self.running[tool_use_id] = name
        self._draw()

    def tool_finished(self, tool_use_id: str) -> None:
        self.running.pop(tool_use_id, None)
        self._draw()

    def question_opened(self, question: object) -> None:
        self.questions.add(question)
        self._show()

    def question_closed(self, question: object) -> None:
        self.questions.discard(question)
        self._show()
        self._draw()

    def _show(self) -> None:
        self.display = self.started is not None and not self.questions

    def interrupting(self) -> None:
        self.stopping = True
        self._draw()

    def stop(self) -> None:
        self.started = None
        self.running.clear()
        self.questions.clear()
        self._show()
        self.stopping = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)
        self._draw()

    def _draw(self) -> None:
        if self.started is None:
            return
        elapsed = int(time.monotonic() - self.started)
        text = Text()
        text.append(f"{SPINNER[self._frame]} {self.verb}… ", style="bold")
        text.append(f"({elapsed}s · ↓ {self.output_tokens} tokens · esc to interrupt)")
        # Redrawn ten times a second and per streamed chunk: with its height fixed
        # by the CSS (one row, the full width) the text cannot change its size, so
        # repaint the row without laying out the screen (and the whole conversation).
        height = self.styles.height
        self.update(text, layout=height is None or not height.is_cells)


def format_tokens(count: int) -> str:
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


def compaction_distance(engine: Any, used: int) -> str:
    """How far the context is from the auto-compaction threshold, as a share of the
    window ("" for an engine without a compactor)."""
    compactor = engine.compactor
    if compactor is None:
        return ""
    if not compactor.auto:
        return "auto-compact off"
    window = compactor.window(engine)
    left = max(compactor.limit(engine) - used, 0) * 100 // window if window else 0
    return f"{left}% until auto-compact"


def tasks_label(count: int) -> str:
    """How many background tasks run ("" for none)."""
    if count <= 0:
        return ""
    return f"{count} background task" + ("" if count == 1 else "s")


class StatusBar(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.note = ""
        self.summary: Text = Text()
        self.hint = ""
        self._last: tuple[Any, str] | None = None  # the engine and state last drawn
        self._board: Any = None  # the background tasks followed
        self._unfollow: Any = None

    def _follow_tasks(self, engine: Any) -> int:
        """Follow the engine's background tasks (a task ending while nothing else
        happens redraws the count); how many run."""
        board = getattr(engine.workspace, "background", None)
        if board is None:
            return 0
        if board is not self._board:
            if self._unfollow is not None:
                self._unfollow()
            self._board = board
            self._unfollow = board.subscribe(self._tasks_changed)
        count: int = board.running_count()
        return count

    def _tasks_changed(self) -> None:
        if self._last is not None:
            engine, state = self._last
            self.refresh_from(engine, provider_state=state)

    def on_unmount(self) -> None:
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None

    def show_summary(self, summary: str | Text) -> None:
        self.summary = Text(summary) if isinstance(summary, str) else summary
        self._draw()

    def show_hint(self, hint: str) -> None:
        """Draw `hint` in place of the summary until it is cleared (`""`)."""
        self.hint = hint
        self._draw()

    def _draw(self) -> None:
        self.update(Text(self.hint, style="bold") if self.hint else self.summary)

    def refresh_from(self, engine: Any, *, provider_state: str = "") -> None:
        if engine is None:
            return
        self._last = (engine, provider_state)
        mode = str(engine.gate.policy.mode)
        from agentcli.core.pricing import format_cost
        from agentcli.engine.windows import context_window

        # The API's own count for the last request: cheap, unlike an estimate of
        # the whole conversation, which a refresh per event could not afford.
        used = engine.last_request_usage.context_tokens
        percent = used * 100 // context_window(engine.config.model, engine.config.models)
        effort = engine.config.reasoning.effort
        parts = [
            f"{engine.config.model} · effort {effort}" if effort else engine.config.model,
            MODE_LABELS.get(mode, mode),
            f"context {format_tokens(used)} ({percent}%)",
            format_cost(engine.cost_usd),
        ]
        until = compaction_distance(engine, used)
        if until:
            parts.insert(3, until)
        if engine.workspace.sandbox is not None:  # see /status
            parts.insert(2, SANDBOX_LABEL)
        if engine.gate.policy.locked_reason:  # settings' deny rules unreadable: see /permissions
            parts.insert(2, LOCKED_LABEL)
        running = tasks_label(self._follow_tasks(engine))  # see /tasks
        if running:
            parts.append(running)
        if provider_state:
            parts.append(provider_state)
        text = Text(" · ".join(parts))
        if mode != "default":
            style = "bold reverse red" if mode == "bypassPermissions" else "bold"
            text.stylize(style, len(parts[0]) + 3, len(parts[0]) + 3 + len(parts[1]))
        text.highlight_words([LOCKED_LABEL], "bold reverse")
        self.show_summary(text)


class CommandStatus(Static):
    """The `statusLine` command's line (frontends/tui/status_command.py), below the
    status bar: its text as the command's colours left it, `padding` cells in; not
    shown while there is none."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.line = Text()
        self.display = False

    def show_line(self, line: Text, padding: int = 0) -> None:
        self.line = line
        self.styles.padding = (0, 0, 0, padding)
        self.update(line)
        self.display = bool(line.plain.strip())
