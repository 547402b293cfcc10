"""The scrolling conversation: user messages, answers, tool panes, notes.

`layout: stream` keeps arranging cheap with many children, and the view is
anchored to the bottom while the person has not scrolled up. Only the last
`max_widgets` items stay mounted: older ones are pruned (they remain in the
engine's history and the transcript), so a session of thousands of messages
costs the same per key press and per token as a short one.

What people and tools wrote is untrusted: user messages, notes given as
strings and markdown notes are cleaned here (agentcli.core.terminal_text), answers
by their widget, tool output by its pane.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from agentcli.core.terminal_text import clean_markdown, terminal_text
from agentcli.frontends.tui.widgets.answer import make_answer_widget
from agentcli.frontends.tui.widgets.tool_pane import ToolPane

MAX_WIDGETS = 300
PRUNE_BATCH = 50


class UserMessageView(Static):
    """What the person sent, prefixed like a prompt."""

    def __init__(self, text: str) -> None:
        super().__init__(terminal_text("> " + text), classes="user-message")
        self.text = text


class Note(Static):
    """A line that is not part of the conversation: errors, notices, command output.

    A string is untrusted text (never markup): shown by `terminal_text`.
    """

    def __init__(self, content: str | Text, level: str = "info") -> None:
        if isinstance(content, str):
            content = terminal_text(content)
        super().__init__(content, classes=f"note -{level}")
        self.level = level


class Conversation(VerticalScroll, can_focus=False):
    def __init__(self, *, max_widgets: int = MAX_WIDGETS, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_widgets = max_widgets
        self.panes: dict[str, ToolPane] = {}
        self.answer: Any | None = None  # the answer streaming now
        self._answer_mounted: Any = None
        self._items: deque[Widget] = deque()  # mounted items, oldest first
        self.last_answer_source: str = ""
        self.pruned = 0
        self._pruned_label = Static("", classes="pruned")
        self._pruned_label.display = False

    def compose(self) -> ComposeResult:
        yield self._pruned_label

    def on_mount(self) -> None:
        self.anchor()

    # -- adding items -----------------------------------------------------------

    def _add(self, widget: Widget) -> Widget:
        self.mount(widget)
        self._items.append(widget)
        self._prune()
        return widget

    def add_widget(self, widget: Widget) -> Widget:
        return self._add(widget)

    def add_user(self, text: str) -> UserMessageView:
        self.anchor()
        return self._add(UserMessageView(text))  # type: ignore[return-value]

    def add_note(self, content: str | Text, level: str = "info") -> Note:
        return self._add(Note(content, level))  # type: ignore[return-value]

    def add_markdown_note(self, markdown: str) -> Widget:
        """Command output written as markdown (/help, /status ...)."""
        from textual.widgets import Markdown

        return self._add(Markdown(clean_markdown(markdown), classes="note -command"))

    def append_text(self, text: str) -> None:
        """A chunk of the streaming answer: O(chunk), no layout of older items."""
        if self.answer is None:
            self.answer = make_answer_widget(classes="assistant-message")
            self._answer_mounted = self.mount(self.answer)
            self._items.append(self.answer)
            self._prune()
        self.answer.append(text)

    async def finish_answer(self) -> None:
        answer, self.answer = self.answer, None
        if answer is not None:
            # A short answer can end before its widget is mounted; finish it after.
            mounted, self._answer_mounted = self._answer_mounted, None
            if mounted is not None and not answer.is_mounted:
                await mounted
            await answer.finish()
            if answer.source.strip():
                self.last_answer_source = answer.source

    def add_tool(self, tool_use_id: str, name: str, inp: dict[str, Any], summary: str) -> ToolPane:
        pane = ToolPane(tool_use_id, name, inp, summary)
        self.panes[tool_use_id] = pane
        self._add(pane)
        return pane

    def pane(self, tool_use_id: str) -> ToolPane | None:
        return self.panes.get(tool_use_id)

    # -- housekeeping -----------------------------------------------------------

    def item_count(self) -> int:
        return len(self._items)

    def _prune(self) -> None:
        """Unmount the oldest items once there are too many (in batches, so the
        layout is rebuilt rarely). Items still being mounted are left for later."""
        if len(self._items) <= self.max_widgets:
            return
        doomed: list[Widget] = []
        while self._items and len(doomed) < PRUNE_BATCH:
            widget = self._items[0]
            if widget is self.answer or not widget.is_mounted:
                break
            doomed.append(self._items.popleft())
        if not doomed:
            return
        for widget in doomed:
            if isinstance(widget, ToolPane):
                self.panes.pop(widget.tool_use_id, None)
        self.pruned += len(doomed)
        self._pruned_label.update(
            f"… {self.pruned} earlier item{'s' if self.pruned != 1 else ''} not shown "
            "(still in the conversation)"
        )
        self._pruned_label.display = True
        self.remove_children(doomed)

    async def clear(self) -> None:
        self.answer = None
        self.panes.clear()
        self.pruned = 0
        self._items.clear()
        self._pruned_label.display = False
        doomed = [c for c in self.children if c is not self._pruned_label]
        await self.remove_children(doomed)
