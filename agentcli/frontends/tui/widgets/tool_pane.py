"""One tool call: header, state, live output, result summary, and the display's body.

Keyed by tool_use id in the conversation, so concurrent calls each update
their own pane. Collapsed by default to a summary line; a click (or Enter
when focused) expands the full output. Bash output is kept as a bounded list
of lines so a chatty command costs O(new output) per update, not O(all).
What the summary says and what is drawn under it (an edit's diff) come from
the call's display model, through the renderer registry (frontends/tui/renderers.py):
the pane knows no tool.

Output and results are untrusted: they are decoded by `TerminalDecoder` /
`terminal_text` (colours kept, every other control dropped), and the call's
label shows any control in its input as a symbol (a command is read exactly).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from agentcli.core.terminal_text import (
    Line,
    TerminalDecoder,
    lines_text,
    terminal_text,
    visible_controls,
)

if TYPE_CHECKING:
    from textual.widget import Widget

    from agentcli.engine.events import ToolStatus
    from agentcli.tools.display import ToolDisplay

    # A pane's state: before its call ends, then how it ended.
    PaneState = Literal["queued", "waiting", "running"] | ToolStatus

TAIL_LINES = 5
MAX_KEPT_LINES = 2000
MAX_DETAIL_LINES = 400  # of a display's body (a diff)
STATE_LABELS: dict[PaneState, str] = {
    "queued": "",
    "waiting": "waiting for permission",
    "running": "running…",
    "done": "",
    "failed": "failed",
    "denied": "denied",
    "interrupted": "interrupted",
}
# A tool whose question is not for permission says what it waits for.
WAITING_LABELS = {"AskUserQuestion": "waiting for your answer"}
ARGUMENT_KEYS = ("command", "file_path", "path", "pattern", "url", "query")


def tool_label(name: str, summary: str, inp: dict[str, Any]) -> str:
    """`Read(src/app.py)`: the tool and what it acts on."""
    detail = summary
    if not detail:
        for key in ARGUMENT_KEYS:
            if isinstance(inp.get(key), str):
                detail = inp[key]
                break
    detail = detail.splitlines()[0] if detail else ""
    if len(detail) > 100:
        detail = detail[:99] + "…"
    return visible_controls(f"{name}({detail})" if detail else name)


def result_text(result: Mapping[str, Any]) -> str:
    """A tool_result's content as text (the `!` shell's pane gives only a `content`)."""
    content = result.get("content", "")
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif isinstance(block, dict):
            parts.append(f"[{block.get('type', 'content')}]")
    return "\n".join(parts)


def summary_line(status: ToolStatus, display: ToolDisplay | None, text: str) -> str:
    """The one line shown for a finished call, like `Read 42 lines`.

    `text` is the result as shown (already decoded); paths in `display` may
    hold anything a file name can: any control in the line is shown as a symbol.
    """
    return visible_controls(_summary(status, display, text))


def _summary(status: ToolStatus, display: ToolDisplay | None, text: str) -> str:
    from agentcli.frontends.tui.renderers import first_line, summary_of

    if status == "denied":
        return "Denied" + (f": {text.splitlines()[0]}" if text else "")
    if status == "interrupted":
        return "Interrupted"
    line = summary_of(display, text) or first_line(text)
    if line is None:
        return "Done" if status == "done" else status.capitalize()
    return line


class ToolPane(Vertical, can_focus=True):
    """A tool call's pane. States are CSS classes (`-running`, `-done`, ...)."""

    BINDINGS = [("enter", "toggle_detail", "Expand")]  # noqa: RUF012

    def __init__(self, tool_use_id: str, name: str, inp: dict[str, Any], summary: str = "") -> None:
        super().__init__(classes="tool-pane -queued")
        self.tool_use_id = tool_use_id
        self.tool_name = name
        self.input = inp
        self.label = tool_label(name, summary, inp)
        self.state: PaneState = "queued"
        self.expanded = False
        self._decoder = TerminalDecoder()
        self._lines: deque[Line] = deque(maxlen=MAX_KEPT_LINES)
        self._result = Text()
        self._summary = ""
        self._header = Static(self._header_text(), classes="tool-header")
        self._body = Static("", classes="tool-body")
        self._body.display = False
        self._detail: Widget | None = None  # the display's body (an edit's diff)
        # Set at the end of on_mount. A call can finish at any point of the
        # pane's own start-up (before compose, between compose and mount), so
        # the detail is mounted by whichever of `finish` and `on_mount` runs last.
        self._started = False
        self._outcome: tuple[ToolStatus, Mapping[str, Any], ToolDisplay | None] | None = None
        self._summary_given = summary

    @property
    def outcome(self) -> tuple[ToolStatus, Mapping[str, Any], ToolDisplay | None] | None:
        """How the call ended (None while it runs): with `summary_given`, what rebuilds
        this pane (history_entries.py `entry_for`)."""
        return self._outcome

    @property
    def summary_given(self) -> str:
        return self._summary_given

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._body

    def on_mount(self) -> None:
        self._started = True
        if self._detail is not None and self._detail.parent is None:
            self.mount(self._detail)

    def _header_text(self) -> Text:
        text = Text()
        text.append("● ", style="bold")
        text.append(self.label, style="bold")
        label = STATE_LABELS.get(self.state, self.state)
        if self.state == "waiting":
            label = WAITING_LABELS.get(self.tool_name, label)
        if label:
            text.append(f"  {label}", style="italic")
        return text

    def set_state(self, state: PaneState) -> None:
        self.remove_class(f"-{self.state}")
        self.state = state
        self.add_class(f"-{state}")
        self._header.update(self._header_text())

    def add_output(self, chunk: str) -> None:
        """Live Bash output: keep the lines (decoded), show the last few."""
        self._lines.extend(self._decoder.feed(chunk))
        self._show_body()

    def finish(
        self, status: ToolStatus, result: Mapping[str, Any], display: ToolDisplay | None
    ) -> None:
        from agentcli.frontends.tui.renderers import body_of

        self._outcome = (status, result, display)
        self._result = terminal_text(result_text(result))
        self._summary = summary_line(status, display, self._result.plain)
        self.set_state(status)
        if status == "done":
            self._detail = body_of(display, MAX_DETAIL_LINES)
        if self._detail is not None:
            self._detail.add_class("tool-detail")
            if self._started:
                self.mount(self._detail)
        self._show_body()

    def action_toggle_detail(self) -> None:
        self.expanded = not self.expanded
        self._show_body()

    def on_click(self) -> None:
        self.action_toggle_detail()

    def _show_body(self) -> None:
        self._body.display = True
        if self.state in ("queued", "waiting", "running"):
            lines = self._output_lines()
            shown = lines if self.expanded else lines[-TAIL_LINES:]
            self._body.update(lines_text(shown, style="dim"))
            return
        body = Text(f"⎿  {self._summary}")
        if self.expanded:
            full = self._result if self._result.plain else lines_text(self._output_lines())
            body.append("\n")
            body.append_text(full)
        elif self._result.plain.strip():
            body.append("  ")
            body.append("(click to expand)", style="dim")
        self._body.update(body)

    def _output_lines(self) -> list[Line]:
        partial = self._decoder.partial
        return [*self._lines, partial] if partial else list(self._lines)

    @property
    def summary(self) -> str:
        return self._summary
