"""A list of choices whose cursor stops at its ends.

Textual's OptionList wraps: Down on the last option jumps to the first. In a
list where the order means something (the rewind's prompts, newest first; the
sessions to resume) that jump lands on the other end of it with nothing on
screen to say so, and Enter then acts on the wrong item. Here Up on the first
enabled option and Down on the last one stay where they are; disabled options
are stepped over, as Textual does.
"""

from __future__ import annotations

from textual.widgets import OptionList


class ChoiceList(OptionList):
    def action_cursor_up(self) -> None:
        self._step(-1)

    def action_cursor_down(self) -> None:
        self._step(1)

    def _step(self, direction: int) -> None:
        if self.highlighted is None:
            if direction > 0:
                self.action_first()
            else:
                self.action_last()
            return
        index = self.highlighted + direction
        while 0 <= index < self.option_count:
            if not self.get_option_at_index(index).disabled:
                self.highlighted = index
                return
            index += direction
