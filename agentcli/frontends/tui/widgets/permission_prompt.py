"""The permission question: what the tool will do, and the answers.

1/y allow once; 2/a allow for this session; 3/n no (the turn carries on and
the model is told why, with the person's words if they typed some after Tab);
4/p allow and save the rule in the project's local settings. The heading and
the answers offered come from the gate (`PermissionRequest.title`,
`.options`), with the rules a "session" or "always" answer adds shown exactly
as they will be saved; the preview (an edit's diff, with the file's real line
numbers; a plan) is the tool's own, drawn by its renderer (frontends/tui/renderers.py).
The prompt knows no tool.

The prompt answers its `PermissionQuestion` (permissions/question.py) and
is taken down by the app when the question closes, answered or withdrawn.

Esc, as everywhere in the app, interrupts the turn: this call and every call
after it do not run, and the model is not asked again until the person
writes. Other keys that arrive within `guard_s` of the question appearing are
ignored: they were typed for the prompt input, not as an answer to a question
the person has not seen yet.

The answers stay on screen at any terminal size (down to 40x12 and below):
the title, the answers and the feedback field keep their rows, and the rest
(the command, the preview, the reason) is a region that scrolls, bounded by
`fit(rows)` to what the screen leaves (the app calls it after each layout).
When even the answers would not fit with a row to spare, they are drawn
compact (no heading, no "saved in" line, no Esc line). Up, Down, PageUp,
PageDown, Home and End scroll the region; they are never answers.

What the tool will do is shown exactly: any control character in the
command, the summary, the reason or a rule is drawn as a symbol (`␛`, `␍`),
never obeyed, so nothing (a `\r`, an escape sequence) can hide part of it.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Static

from agentcli.core.terminal_text import visible_controls
from agentcli.frontends.tui.renderers import body_of
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest
from agentcli.permissions.types import Scope

GUARD_S = 0.25
PREVIEW_LINES = 1000  # the region scrolls; a bound keeps a huge write's preview quick to draw
DETAILS_MAX_ROWS = 20  # on a tall screen, the conversation keeps the rest
SCROLL_KEYS = {
    "up": "scroll_up",
    "down": "scroll_down",
    "pageup": "scroll_page_up",
    "pagedown": "scroll_page_down",
    "home": "scroll_home",
    "end": "scroll_end",
}

# The keys of each allowing answer: its number, then its letter.
SCOPE_KEYS: dict[Scope, tuple[str, str]] = {
    "once": ("1", "y"),
    "session": ("2", "a"),
    "always": ("4", "p"),
}
ALLOW_KEYS: dict[str, Scope] = {key: scope for scope, keys in SCOPE_KEYS.items() for key in keys}
DENY_KEYS = {"3", "n"}


def offered_scopes(request: PermissionRequest) -> set[Scope]:
    """The allowing answers that mean something for this call (the gate's options)."""
    return {option.scope for option in request.options}


def options_text(request: PermissionRequest, *, compact: bool = False) -> Text:
    """The answers; `compact`: their lines only, each led by its keys (`2/a Yes, and
    ...`), for a screen too small for the heading, the "saved in" and Esc lines."""
    labels = {option.scope: option.label for option in request.options}
    lines: list[tuple[str, str, str]] = [
        (*SCOPE_KEYS[scope], visible_controls(labels[scope]))
        for scope in ("once", "session")
        if scope in labels
    ]
    lines.append(("3", "n", "No, and tell the model what to do differently"))
    if "always" in labels:
        lines.append((*SCOPE_KEYS["always"], visible_controls(labels["always"])))
    if compact:
        return Text("\n".join(f"{number}/{letter} {label}" for number, letter, label in lines))
    text = Text("Do you want to proceed?\n", style="bold")
    for number, letter, label in lines:
        text.append(f"  {number}. {label}  ({number}/{letter})\n")
        if number == SCOPE_KEYS["always"][0]:
            text.append("     saved in .agentcli/settings.local.json\n")
    text.append("Esc interrupts the turn", style="dim")
    return text


class PermissionPrompt(Vertical, can_focus=True):
    """No id: the next question's prompt may be mounted while this one is being removed."""

    def __init__(self, question: PermissionQuestion, *, guard_s: float = GUARD_S) -> None:
        super().__init__(classes="permission")
        self.question = question
        self.request = question.request
        self.guard_s = guard_s
        self.shown_at = time.monotonic()
        self.ignored_keys = 0
        self.compact = False
        self.details_rows: int | None = None  # what `fit` last bounded the details to
        self.frame: tuple[int, int] | None = None  # the frame's columns and rows, when on

    def compose(self) -> ComposeResult:
        req = self.request
        title = Text(visible_controls(req.title), style="bold")
        if req.asked_by is not None:  # a subagent asks: say which
            title.append(f"  (asked by {visible_controls(req.asked_by.label())})")
        yield Static(title, classes="permission-title")
        with VerticalScroll(classes="permission-details", can_focus=False):
            body = req.subject or req.summary or ""
            if body:
                yield Static(Text(visible_controls(body)), classes="permission-subject")
            preview = body_of(req.preview, PREVIEW_LINES)
            if preview is not None:
                preview.add_class("permission-preview")
                yield preview
            if req.reason:
                reason = Text(f"({visible_controls(req.reason)})", style="dim")
                yield Static(reason, classes="permission-reason")
        yield Static(options_text(req), classes="permission-options")
        yield Input(
            placeholder="Tab here to tell the model what to do instead, then Enter",
            id="permission-feedback",
        )

    def fit(self, rows: int, columns: int) -> None:
        """Take at most `rows` rows of a screen `columns` wide: the answers keep theirs,
        the details get the rest (up to DETAILS_MAX_ROWS). When the full question would
        leave the details no row, it goes compact: no frame, and the answers without
        their heading, "saved in" and Esc lines. Measured on the screen's width (not on
        the width left by a scrollbar an overflow brought) and decided on the full
        question's measures, so it never flips back and forth; called after each layout,
        it changes nothing once fitted."""
        details = self.query_one(".permission-details", VerticalScroll)
        options = self.query_one(".permission-options", Static)
        if self.frame is None:  # measured once, while the frame is on
            border = self.styles.border.spacing
            self.frame = (border.width, border.height)
        pad = self.styles.padding
        framed = (pad.width + self.frame[0], pad.height + self.frame[1])
        others = sum(
            child.outer_size.height
            for child in self.children
            if child.display and child is not details and child is not options
        )
        full = self._lines(options_text(self.request), columns - framed[0])
        compact = framed[1] + others + full + (1 if details.children else 0) > rows
        if compact != self.compact:
            self.compact = compact
            self.set_class(compact, "-compact")
            options.update(options_text(self.request, compact=compact))
        gutter = (pad.width, pad.height) if compact else framed  # the frame goes with -compact
        answers = self._lines(options_text(self.request, compact=compact), columns - gutter[0])
        details_rows = max(0, min(rows - gutter[1] - others - answers, DETAILS_MAX_ROWS))
        if details_rows != self.details_rows:
            self.details_rows = details_rows
            details.styles.max_height = details_rows
            details.display = details_rows > 0

    def _lines(self, text: Text, width: int) -> int:
        """The rows `text` takes in the answers' widget at `width`, wrapped as Textual
        wraps it there (not as rich would)."""
        options = self.query_one(".permission-options", Static)
        return Content.from_rich_text(text).get_height(options.styles.get_rules(), width)

    def on_mount(self) -> None:
        self.shown_at = time.monotonic()
        self.focus()

    def on_key(self, event: events.Key) -> None:
        if isinstance(self.screen.focused, Input) and event.key != "escape":
            return
        event.stop()
        event.prevent_default()
        if event.key == "escape":  # never guarded: stopping is always safe
            self.interrupt()
            return
        if event.key in SCROLL_KEYS:  # never an answer, so never guarded either
            details = self.query_one(".permission-details", VerticalScroll)
            getattr(details, SCROLL_KEYS[event.key])(animate=False)
            return
        if time.monotonic() - self.shown_at < self.guard_s:
            self.ignored_keys += 1
            return
        key = event.character if event.character and event.character.isprintable() else event.key
        key = key.lower() if key else ""
        if key in ALLOW_KEYS and ALLOW_KEYS[key] in offered_scopes(self.request):
            self.question.answer(PermissionAnswer(allow=True, scope=ALLOW_KEYS[key]))
        elif key in DENY_KEYS:
            feedback = self.query_one("#permission-feedback", Input).value.strip()
            self.question.answer(PermissionAnswer(allow=False, feedback=feedback or None))
        elif event.key == "tab":
            self.query_one("#permission-feedback", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.question.answer(PermissionAnswer(allow=False, feedback=event.value.strip() or None))

    def interrupt(self) -> None:
        """Esc: refuse this call and stop the turn."""
        self.question.answer(PermissionAnswer(allow=False, interrupt=True))
