"""The line a compaction leaves in the conversation, which opens to show what it did.

Collapsed: what was kept verbatim and what was summarised (the report's
lines). Enter (while it has the focus) or a click opens it: the summary the
model wrote and the prompts carried verbatim, as the model now sees them. All
of it is untrusted text (the model wrote the summary): shown by
`terminal_text`, never as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from agentcli.core.terminal_text import terminal_text

if TYPE_CHECKING:
    from agentcli.engine.compaction import CompactionReport

HINT = "  (enter or click: show the summary)"


class CompactionNote(Static, can_focus=True):
    BINDINGS = [("enter", "toggle_detail", "Expand")]  # noqa: RUF012

    def __init__(self, report: CompactionReport) -> None:
        self.report = report
        self.expanded = False
        super().__init__(self._text(), classes="note -compaction")

    def action_toggle_detail(self) -> None:
        self.expanded = not self.expanded
        self.update(self._text())

    def on_click(self) -> None:
        self.action_toggle_detail()

    def _text(self) -> Text:
        text = terminal_text(self.report.describe())
        if not self.expanded:
            text.append(HINT, style="dim")
            return text
        text.append("\n\nThe model's summary:\n", style="bold")
        text.append_text(terminal_text(self.report.summary or "(none)"))
        for number, prompt in enumerate(self.report.carried.prompts, start=1):
            text.append(f"\n\nCarried prompt {number}:\n", style="bold")
            text.append_text(terminal_text(prompt))
        return text
