"""The completion popup above the prompt: a filtered list the keyboard drives.

The prompt keeps focus the whole time (typing keeps filtering); Up/Down,
Tab/Enter and Esc are forwarded here by the prompt while the popup shows.
File names are anyone's (a cloned repository's): a control character in one
is shown as a symbol, never sent to the terminal.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from agentcli.core.terminal_text import visible_controls
from agentcli.frontends.tui.completers import Completion


class CompletionPopup(OptionList, can_focus=False):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.items: list[Completion] = []
        self.display = False

    def show(self, items: list[Completion]) -> None:
        self.items = items
        self.clear_options()
        if not items:
            self.display = False
            return
        options = []
        for item in items:
            label = Text(visible_controls(item.label), style="bold")
            if item.description:
                label.append("  " + visible_controls(item.description), style="dim")
            options.append(Option(label))
        self.add_options(options)
        self.highlighted = 0
        self.display = True

    def hide(self) -> None:
        self.items = []
        self.display = False

    @property
    def showing(self) -> bool:
        """Open with something to pick (not Textual's `visible`, which this must not hide)."""
        return bool(self.display and self.items)

    def move(self, delta: int) -> None:
        if not self.items:
            return
        current = self.highlighted or 0
        self.highlighted = (current + delta) % len(self.items)

    def selected(self) -> Completion | None:
        if not self.items:
            return None
        return self.items[self.highlighted or 0]
