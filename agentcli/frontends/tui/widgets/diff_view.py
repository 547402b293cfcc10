"""An Edit/Write diff as coloured lines, with line numbers.

The colours come from component classes (`diff--added`, ...), so themes set
them in .tcss. Lines keep their +/- sign, so the diff reads without colour
(NO_COLOR, a monochrome terminal, or copied text). A control character in a
line (a file may hold any) is drawn as a symbol, never sent to the terminal.

The lines are made when the widget is first drawn or measured, not by its
mount handler: the screen can lay a new widget out before that handler ran,
and a diff that was still empty then showed one line tall for a frame, with
everything below it jumping down. A style update (a new theme) makes them anew.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.widget import Widget

from agentcli.core.terminal_text import visible_controls

if TYPE_CHECKING:
    from agentcli.tools.display import DiffDisplay, DiffHunk

MAX_DIFF_LINES = 400


class DiffView(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff--added",
        "diff--removed",
        "diff--context",
        "diff--hunk",
        "diff--lineno",
    }
    # Colours live in app.tcss and the theme files.
    DEFAULT_CSS = "DiffView { height: auto; }"

    def __init__(self, diff: DiffDisplay, *, max_lines: int = MAX_DIFF_LINES) -> None:
        super().__init__()
        self.diff = diff
        self.max_lines = max_lines
        self._drawn: Text | None = None

    def render(self) -> Text:
        if self._drawn is None:
            self._drawn = self.render_diff()
        return self._drawn

    def notify_style_update(self) -> None:
        self._drawn = None  # the colours come from the styles: a new theme, new lines
        super().notify_style_update()

    def render_diff(self) -> Text:
        styles = {
            name: self.get_component_rich_style(f"diff--{name}", partial=True)
            for name in ("added", "removed", "context", "hunk", "lineno")
        }
        out = Text(no_wrap=False, end="")
        shown = 0
        hunks = self.diff.hunks
        width = max(
            (len(str(max(h.old_start + h.old_lines, h.new_start + h.new_lines))) for h in hunks),
            default=1,
        )
        for index, hunk in enumerate(hunks):
            if index:
                out.append("   ⋮\n", styles["hunk"])
            old_no, new_no = hunk.old_start, hunk.new_start
            for line in hunk.lines:
                if shown >= self.max_lines:
                    out.append(
                        f"   … {self._remaining(hunks) - shown} more lines\n", styles["hunk"]
                    )
                    return out
                sign, body = (line[:1] or " "), line[1:]
                if sign == "+":
                    number, style = new_no, styles["added"]
                    new_no += 1
                elif sign == "-":
                    number, style = old_no, styles["removed"]
                    old_no += 1
                else:
                    number, style = new_no, styles["context"]
                    old_no += 1
                    new_no += 1
                out.append(f"{number:>{width}} ", styles["lineno"])
                out.append(f"{sign} {visible_controls(body)}\n", style)
                shown += 1
        out.rstrip()
        return out

    @staticmethod
    def _remaining(hunks: tuple[DiffHunk, ...]) -> int:
        return sum(len(h.lines) for h in hunks)
