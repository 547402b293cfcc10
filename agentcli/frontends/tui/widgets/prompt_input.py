"""The multi-line prompt: Enter sends, Shift+Enter / Ctrl+J add a line.

A TextArea, so a paste's own newlines never send it, and the text is never
lost while a turn runs: the prompt stays editable and its content is only
cleared when it is sent. A long paste shows as a placeholder
(`[Pasted text #1 +5000 lines]`, see pastes.py); the app expands it on send. A pasted
path of an image file (a drag-and-drop) and Ctrl+V with an image on the clipboard
attach the image and show `[Image #1]` (prompt_images.py). Up/Down walk
the per-project history when the cursor is on the first/last line; while the
completion popup shows they move in the popup instead.
"""

from __future__ import annotations

import asyncio
import shlex
from typing import Any

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from agentcli.core.images import FittedImage, ImageProblem, fit_image
from agentcli.core.messages import Message as ConversationMessage
from agentcli.core.messages import text_of
from agentcli.frontends.tui.history import PromptHistory
from agentcli.frontends.tui.pastes import PastedTexts, is_long
from agentcli.frontends.tui.prompt_images import (
    PromptImages,
    looks_like_image,
    pasted_paths,
    read_image_file,
)
from agentcli.frontends.tui.vim_keys import Outcome, VimKeys

PLACEHOLDER = "Type a message · / for commands · @ for files · ! for shell"


# Keys the prompt hands to the conversation (docs/ui.md, "Scrolling back").
SCROLL_KEYS = frozenset({"pageup", "pagedown", "ctrl+home", "ctrl+end"})
SCROLL_KEYS_WHEN_EMPTY = frozenset({"home", "end"})


class PromptInput(TextArea):
    BINDINGS = [  # noqa: RUF012
        Binding("ctrl+c", "app.ctrl_c", "Clear / quit", show=False, priority=False),
        Binding("ctrl+d", "ctrl_d", "Quit on empty", show=False),
        Binding("shift+tab", "app.cycle_mode", "Mode", show=False),
        Binding("ctrl+v", "paste_image", "Paste an image", show=False),
    ]

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Notice(Message):
        """Something to tell the person about an attachment (the app shows it)."""

        def __init__(self, text: str, level: str) -> None:
            super().__init__()
            self.text = text
            self.level = level

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
        self.images = PromptImages()
        self.vim: VimKeys | None = None  # vim keys on (`/vim`, "editorMode": "vim")

    def set_vim(self, on: bool) -> None:
        """Vim keys on (in insert mode) or off; the border shows the mode while on."""
        self.vim = VimKeys() if on else None
        self.styles.border_subtitle_align = "left"
        self._show_vim_mode()

    def _show_vim_mode(self) -> None:
        self.border_subtitle = self.vim.indicator if self.vim is not None else ""

    def set_text(self, text: str) -> None:
        self.text = text
        self.move_cursor(self.document.end)

    def restore(self, message: ConversationMessage) -> None:
        """A sent prompt back in the input, with its images (a rewind)."""
        self.set_text(text_of(message))
        self.images.restore(message)

    def recall(self, entry: str) -> None:
        """Show a history entry; a long one folds like the paste it most likely was."""
        self.set_text(self.pastes.fold(entry) if is_long(entry) else entry)

    def on_paste(self, event: events.Paste) -> None:
        """Insert the paste, or its placeholder when it is long (instead of TextArea's own
        handler, which would insert the text again: prevent_default skips it)."""
        event.prevent_default()
        if self.read_only:
            return
        self.insert_text(self.pastes.fold(self._attach_pasted_paths(event.text)))
        self.focus()

    def insert_text(self, text: str) -> None:
        """In place of the selection, the cursor after it."""
        result = self.replace(text, *self.selection)
        self.move_cursor(result.end_location)

    def attach_image(self, name: str, image: FittedImage) -> str | None:
        """The image's token, or None (the person told why) when the prompt is full."""
        try:
            mark = self.images.add(name, image)
        except ImageProblem as problem:
            self.post_message(self.Notice(f"Not attached: {name}: {problem}.", "warning"))
            return None
        if image.resized_from is not None:
            self.post_message(self.Notice(f"{mark} {name}: {image.describe()}.", "attachment"))
        return mark

    def _attach_pasted_paths(self, text: str) -> str:
        """A paste of image files' paths as their tokens; any other paste unchanged."""
        paths = pasted_paths(text)
        if not paths or not any(looks_like_image(p) for p in paths):
            return text
        parts: list[str] = []
        attached = 0
        for path in paths:
            mark = None
            if looks_like_image(path):
                try:
                    mark = self.attach_image(path.name, read_image_file(path))
                except ImageProblem as problem:
                    self.post_message(self.Notice(f"Not attached: {path}: {problem}.", "warning"))
            attached += mark is not None
            parts.append(mark or shlex.quote(str(path)))
        if not attached:
            return text  # the paste exactly as it came
        before = " " if text.startswith(" ") else ""  # the spaces around, as pasted
        after = " " if text.endswith(" ") else ""
        return before + " ".join(parts) + after

    def action_paste_image(self) -> None:
        """Ctrl+V: the clipboard's image, read by the system's tool (clipboard_image.py)."""
        if not self.read_only:
            self.run_worker(self._paste_clipboard_image(), group="clipboard-image")

    async def _paste_clipboard_image(self) -> None:
        from agentcli.frontends.tui.clipboard_image import read_clipboard_image

        found = await read_clipboard_image()
        if found.data is None:
            self.post_message(self.Notice(found.problem, "warning"))
            return
        try:
            image = await asyncio.to_thread(fit_image, found.data)
        except ImageProblem as problem:
            self.post_message(
                self.Notice(f"Not attached: the clipboard's image: {problem}.", "warning")
            )
            return
        mark = self.attach_image("clipboard", image)
        if mark is not None:
            self.insert_text(mark)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """An emptied prompt (cleared, sent) has no images left to number from."""
        if not self.text:
            self.images.clear()

    def on_key(self, event: events.Key) -> None:
        """Sending, new lines, history and popup keys; any other key goes on to
        TextArea's own handler unless `prevent_default()` was called here."""
        key = event.key
        if self.popup_open and key in ("up", "down", "tab", "enter", "escape"):
            event.stop()
            event.prevent_default()
            self.post_message(self.Navigate(key))
            return
        if self.vim is not None:
            outcome = self.vim.key(key, event.character, self.text, self._offset())
            self._show_vim_mode()
            if not outcome.passes_on:
                event.stop()
                event.prevent_default()
            if outcome.arrow:
                self._vim_arrow(outcome.arrow)
                return
            self._apply(outcome)
            if not outcome.passes_on:
                return
        if key in SCROLL_KEYS or (key in SCROLL_KEYS_WHEN_EMPTY and not self.text):
            event.stop()
            event.prevent_default()
            self.post_message(self.ScrollConversation(key))
            return
        if key == "enter":
            event.stop()
            event.prevent_default()
            if self.vim is not None:  # the next prompt is typed, as in Claude Code
                self.vim.mode = "insert"
                self._show_vim_mode()
            self.post_message(self.Submitted(self.text))
            return
        if key in ("shift+enter", "ctrl+j", "alt+enter"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if key in ("up", "down") and self._walk_history(key):
            event.stop()
            event.prevent_default()

    def _walk_history(self, key: str) -> bool:
        """Up on the first line, Down on the last: the history's entry, if it has one."""
        history = self.prompt_history
        if history is None:
            return False
        if key == "up" and self.cursor_location[0] == 0:
            entry = history.previous(self.text)
            if entry is None:
                return False
            self.recall(entry)
            return True
        if (
            key == "down"
            and history.walking
            and self.cursor_location[0] == self.document.line_count - 1
        ):
            entry = history.next()
            if entry is None:
                return False
            if history.walking:
                self.recall(entry)
            else:  # back to the draft, exactly as it was left
                self.set_text(entry)
            return True
        return False

    # -- vim keys (frontends/tui/vim_keys.py decides, this applies) -----------------------

    def _offset(self) -> int:
        row, column = self.cursor_location
        lines = self.text.split("\n")
        return sum(len(line) + 1 for line in lines[:row]) + column

    def _location(self, offset: int) -> tuple[int, int]:
        before = self.text[: max(0, offset)]
        return before.count("\n"), len(before) - (before.rfind("\n") + 1)

    def _apply(self, outcome: Outcome) -> None:
        for _ in range(outcome.undo):
            self.undo()
        if outcome.edit is not None:
            edit = outcome.edit
            self.replace(edit.text, self._location(edit.start), self._location(edit.end))
        if outcome.cursor is not None:
            self.move_cursor(self._location(outcome.cursor))

    def _vim_arrow(self, key: str) -> None:
        """j / k: the history on the first / last line, as Up / Down; else a line."""
        if not self._walk_history(key):
            row, column = self.cursor_location
            row = row + 1 if key == "down" else row - 1
            if 0 <= row < self.document.line_count:
                line = self.document.get_line(row)
                self.move_cursor((row, min(column, max(0, len(line) - 1))))

    def action_ctrl_d(self) -> None:
        if not self.text:
            self.app.exit()
        else:
            self.action_delete_right()
