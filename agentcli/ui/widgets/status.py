"""The status line (while a turn runs) and the status bar (always).

The status line shows a spinner, elapsed time, output tokens and
"esc to interrupt"; it ticks on a timer only while a turn runs. The status
bar shows model, permission mode (bypassPermissions in red, "everything asks"
while protection is uncertain, "sandboxed" while Bash runs in the sandbox),
context used and session cost; the app
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
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.started: float | None = None
        self.verb = "Working"
        self.output_tokens = 0
        self._frame = 0
        self._timer: Timer | None = None
        self.display = False

    def start(self, verb: str = "Working") -> None:
        self.started = time.monotonic()
        self.verb = verb
        self.output_tokens = 0
        self.display = True
        if self._timer is None:
            self._timer = self.set_interval(0.1, self._tick)
        self._tick()

    def set_verb(self, verb: str) -> None:
        self.verb = verb

    def stop(self) -> None:
        self.started = None
        self.display = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _tick(self) -> None:
        if self.started is None:
            return
        self._frame = (self._frame + 1) % len(SPINNER)
        elapsed = int(time.monotonic() - self.started)
        text = Text()
        text.append(f"{SPINNER[self._frame]} {self.verb}… ", style="bold")
        text.append(f"({elapsed}s · ↓ {self.output_tokens} tokens · esc to interrupt)")
        self.update(text)


def format_tokens(count: int) -> str:
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


class StatusBar(Static):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.note = ""
        self.summary: Text = Text()
        self.hint = ""

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
        mode = str(engine.gate.policy.mode)
        from agentcli.core.pricing import format_cost
        from agentcli.engine.windows import context_window

        # The API's own count for the last request: cheap, unlike an estimate of
        # the whole conversation, which a refresh per event could not afford.
        used = engine.last_request_usage.context_tokens
        percent = used * 100 // context_window(engine.config.model, engine.config.models)
        parts = [
            engine.config.model,
            MODE_LABELS.get(mode, mode),
            f"context {format_tokens(used)} ({percent}%)",
            format_cost(engine.cost_usd),
        ]
        if engine.workspace.sandbox is not None:  # see /status
            parts.insert(2, SANDBOX_LABEL)
        if engine.gate.policy.locked_reason:  # settings' deny rules unreadable: see /permissions
            parts.insert(2, LOCKED_LABEL)
        if provider_state:
            parts.append(provider_state)
        text = Text(" · ".join(parts))
        if mode != "default":
            style = "bold reverse red" if mode == "bypassPermissions" else "bold"
            text.stylize(style, len(parts[0]) + 3, len(parts[0]) + 3 + len(parts[1]))
        text.highlight_words([LOCKED_LABEL], "bold reverse")
        self.show_summary(text)
