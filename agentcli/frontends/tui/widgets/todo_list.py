"""The model's checklist (TodoWrite), pinned above the prompt while work goes on.

It shows the list of the latest TodoWrite call of the main conversation:
done items struck through, the item in progress highlighted (with its
`activeForm`: "Running the tests"), the rest pending. It hides itself when
there is nothing left to do (an empty list, or every item completed) and
when the conversation is cleared. Items are the model's words: controls are
shown as symbols.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from agentcli.core.terminal_text import visible_controls

if TYPE_CHECKING:
    from agentcli.tools.todo_write import TodoItem


class TodoPanel(Static):
    DEFAULT_CSS = """
    TodoPanel { height: auto; max-height: 12; padding: 0 1; margin: 1 0 0 0; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.items: tuple[TodoItem, ...] = ()
        self.display = False

    def show_list(self, items: Sequence[TodoItem]) -> None:
        """Show `items` (the whole list); hide when nothing is left to do."""
        self.items = tuple(items)
        self.display = any(item.status != "completed" for item in self.items)
        self.update(self._text())

    @property
    def current(self) -> TodoItem | None:
        return next((item for item in self.items if item.status == "in_progress"), None)

    def _text(self) -> Text:
        text = Text()
        for number, item in enumerate(self.items):
            if number:
                text.append("\n")
            if item.status == "completed":
                text.append("☒ ", style="green")
                text.append(visible_controls(item.content), style="strike dim")
            elif item.status == "in_progress":
                text.append("▶ ", style="bold")
                text.append(visible_controls(item.active_form), style="bold reverse")
            else:
                text.append("☐ " + visible_controls(item.content))
        return text
