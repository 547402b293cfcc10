"""An Edit/Write diff as coloured lines, with line numbers.

The colours come from component classes (`diff--added`, ...), so themes set
them in .tcss. Lines keep their +/- sign, so the diff reads without colour
(NO_COLOR, a monochrome terminal, or copied text). A control character in a
line (a file may hold any) is drawn as a symbol, never sent to the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.widgets import Static

from agentcli.core.terminal_text import visible_controls

if TYPE_CHECKING:
    from agentcli.tools.display import DiffDisplay, DiffHunk

MAX_DIFF_LINES = 400


class DiffView(Static):
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
        super().__init__("")
        self.diff = diff
        self.max_lines = max_lines

    def on_mount(self) -> None:
        self.update(self.render_diff())

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
