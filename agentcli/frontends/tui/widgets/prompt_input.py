"""The multi-line prompt: Enter sends, Shift+Enter / Ctrl+J add a line.

A TextArea, so a paste's own newlines never send it, and the text is never
lost while a turn runs: the prompt stays editable and its content is only
cleared when it is sent. A long paste shows as a placeholder
(`[Pasted text #1 +5000 lines]`, see pastes.py); the app expands it on send. Up/Down walk
the per-project history when the cursor is on the first/last line; while the
completion popup shows they move in the popup instead.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from agentcli.frontends.tui.history import PromptHistory
from agentcli.frontends.tui.pastes import PastedTexts, is_long

PLACEHOLDER = "Type a message · / for commands · @ for files · ! for shell"


# Keys the prompt hands to the conversation (docs/ui.md, "Scrolling back").
SCROLL_KEYS = frozenset({"pageup", "pagedown", "ctrl+home", "ctrl+end"})
SCROLL_KEYS_WHEN_EMPTY = frozenset({"home", "end"})


class PromptInput(TextArea):
    BINDINGS = [  # noqa: RUF012
        Binding("ctrl+c", "app.ctrl_c", "Clear / quit", show=False, priority=False),
        Binding("ctrl+d", "ctrl_d", "Quit on empty", show=False),
        Binding("shift+tab", "app.cycle_mode", "Mode", show=False),
    ]

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Navigate(Message):
        """A key the completion popup wants while it is showing."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class ScrollConversation(Message):
        """A key that scrolls the conversation while the prompt keeps the focus:
        pageup / pagedown always, home / end / ctrl+home / ctrl+end while it is empty."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            "",
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            compact=True,
            placeholder=PLACEHOLDER,
            highlight_cursor_line=False,
            **kwargs,
        )
        self.prompt_history: PromptHistory | None = None  # set by the app
        self.popup_open = False  # set by the app when the completion popup shows
        self.pastes = PastedTexts()

    def set_text(self, text: str) -> None:
        self.text = text
        self.move_cursor(self.document.end)

    def recall(self, entry: str) -> None:
        """Show a history entry; a long one folds like the paste it most likely was."""
        self.set_text(self.pastes.fold(entry) if is_long(entry) else entry)

    def on_paste(self, event: events.Paste) -> None:
        """Insert the paste, or its placeholder when it is long (instead of TextArea's own
        handler, which would insert the text again: prevent_default skips it)."""
        event.prevent_default()
        if self.read_only:
            return
        result = self.replace(self.pastes.fold(event.text), *self.selection)
        self.move_cursor(result.end_location)
        self.focus()

    def on_key(self, event: events.Key) -> None:
        """Sending, new lines, history and popup keys; any other key goes on to
        TextArea's own handler unless `prevent_default()` was called here."""
        key = event.key
        if self.popup_open and key in ("up", "down", "tab", "enter", "escape"):
            event.stop()
            event.prevent_default()
            self.post_message(self.Navigate(key))
            return
        if key in SCROLL_KEYS or (key in SCROLL_KEYS_WHEN_EMPTY and not self.text):
            event.stop()
            event.prevent_default()
            self.post_message(self.ScrollConversation(key))
            return
        if key == "enter":
            event.stop()
            event.prevent_default()
            self.post_message(self.Submitted(self.text))
            return
        if key in ("shift+enter", "ctrl+j", "alt+enter"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if key == "up" and self.prompt_history is not None and self.cursor_location[0] == 0:
            entry = self.prompt_history.previous(self.text)
            if entry is not None:
                event.stop()
                event.prevent_default()
                self.recall(entry)
                return
        if (
            key == "down"
            and self.prompt_history is not None
            and self.prompt_history.walking
            and self.cursor_location[0] == self.document.line_count - 1
        ):
            entry = self.prompt_history.next()
            if entry is not None:
                event.stop()
                event.prevent_default()
                if self.prompt_history.walking:
                    self.recall(entry)
                else:  # back to the draft, exactly as it was left
                    self.set_text(entry)
                return

    def action_ctrl_d(self) -> None:
        if not self.text:
            self.app.exit()
        else:
            self.action_delete_right()
