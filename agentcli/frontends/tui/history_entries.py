"""The conversation's items as data: what each widget shows, without the widget.

A long conversation cannot keep a widget for every item: ten thousand
mounted widgets make every layout slow and hold hundreds of megabytes. The
conversation (widgets/conversation.py) keeps widgets for the items near
what is on screen and an `Entry` for each of the others: a few fields that
rebuild the same widget when the person scrolls back to it. Entries come
from a resumed transcript (history_view.py) or from a live widget that
scrolled far off screen (`entry_for`).

`lines` is a rough height, used only to decide how many entries make about
a screen; the real height is the widget's, once built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widget import Widget

from agentcli.tools.display import ToolDisplay

if TYPE_CHECKING:
    from agentcli.engine.events import ToolStatus


@dataclass(frozen=True, slots=True)
class UserEntry:
    text: str

    def build(self) -> Widget:
        from agentcli.frontends.tui.widgets.items import UserMessageView

        return UserMessageView(self.text)

    def lines(self) -> int:
        return 2 + self.text.count("\n")


@dataclass(frozen=True, slots=True)
class NoteEntry:
    content: str | Text
    level: str = "info"

    def build(self) -> Widget:
        from agentcli.frontends.tui.widgets.items import Note

        return Note(self.content, self.level)

    def lines(self) -> int:
        plain = self.content if isinstance(self.content, str) else self.content.plain
        return 1 + plain.count("\n")


@dataclass(frozen=True, slots=True)
class MarkdownNoteEntry:
    """Command output written as markdown (/help, /status ...), already cleaned."""

    markdown: str

    def build(self) -> Widget:
        from textual.widgets import Markdown

        return Markdown(self.markdown, classes="note -command")

    def lines(self) -> int:
        return 2 + self.markdown.count("\n")


@dataclass(frozen=True, slots=True)
class AnswerEntry:
    """A finished answer: its markdown source."""

    source: str

    def build(self) -> Widget:
        from agentcli.frontends.tui.widgets.answer import make_answer_widget

        answer = make_answer_widget(classes="assistant-message")
        answer.complete(self.source)
        return answer  # type: ignore[no-any-return]

    def lines(self) -> int:
        return 2 + self.source.count("\n")


class LazyDisplay:
    """A display as a transcript recorded it, validated when first asked (by the
    pane's build, or ahead of it in a resume's loader thread) and kept: a resume draws
    its newest answer before any display model is built."""

    __slots__ = ("_data", "_done", "_value")

    def __init__(self, data: object) -> None:
        self._data = data
        self._value: ToolDisplay | None = None
        self._done = False

    def __call__(self) -> ToolDisplay | None:
        if not self._done:
            from agentcli.tools.display import load_display

            self._value = load_display(self._data)  # two threads may both: the same model
            self._done = True
        return self._value


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """A finished tool call: the pane as it was left."""

    tool_use_id: str
    name: str
    input: dict[str, Any]
    summary: str | Callable[[], str]  # a function: worked out when the pane is built
    status: ToolStatus
    result: Mapping[str, Any]
    display: ToolDisplay | LazyDisplay | None = field(default=None)

    def build(self) -> Widget:
        from agentcli.frontends.tui.widgets.tool_pane import ToolPane

        summary = self.summary() if callable(self.summary) else self.summary
        pane = ToolPane(self.tool_use_id, self.name, self.input, summary)
        pane.finish(self.status, self.result, self.shown_display())
        return pane

    def shown_display(self) -> ToolDisplay | None:
        """The display the pane shows (a recorded one validated now, once)."""
        return self.display() if isinstance(self.display, LazyDisplay) else self.display

    def lines(self) -> int:
        return 2 if self.display is None else 8


Entry = UserEntry | NoteEntry | MarkdownNoteEntry | AnswerEntry | ToolEntry


def entry_for(widget: Widget) -> Entry | None:
    """The entry that rebuilds `widget` as it is now; None for a widget that cannot be
    rebuilt (one still changing, or one the conversation did not make)."""
    from textual.widgets import Markdown

    from agentcli.frontends.tui.widgets.items import Note, UserMessageView
    from agentcli.frontends.tui.widgets.tool_pane import ToolPane

    made = getattr(widget, "history_entry", None)
    if made is not None:
        return made  # type: ignore[no-any-return]
    if isinstance(widget, UserMessageView):
        return UserEntry(widget.text)
    if isinstance(widget, Note):
        return NoteEntry(widget.given, widget.level)
    if isinstance(widget, ToolPane):
        if widget.outcome is None:
            return None  # still running: it cannot be rebuilt as it will be
        status, result, display = widget.outcome
        return ToolEntry(
            widget.tool_use_id,
            widget.tool_name,
            widget.input,
            widget.summary_given,
            status,
            result,
            display,
        )
    if isinstance(widget, Markdown) and widget.has_class("note"):
        return MarkdownNoteEntry(widget.source)
    if widget.has_class("assistant-message") and getattr(widget, "finished", False):
        return AnswerEntry(widget.source)  # type: ignore[attr-defined]
    return None
