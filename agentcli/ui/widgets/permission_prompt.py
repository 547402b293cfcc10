"""The permission question: what the tool will do, and the answers.

1/y allow once; 2/a allow for this session; 3/n no (the turn carries on and
the model is told why, with the person's words if they typed some after Tab);
4/p allow and save the rule in the project's local settings. The heading and
the answers offered come from the gate (`PermissionRequest.title`,
`.options`), with the rules a "session" or "always" answer adds shown exactly
as they will be saved; the preview (an edit's diff, with the file's real line
numbers; a plan) is the tool's own, drawn by its renderer (ui/renderers.py).
The prompt knows no tool.

The prompt answers its `PermissionQuestion` (permissions/question.py) and
is taken down by the app when the question closes, answered or withdrawn.

Esc, as everywhere in the app, interrupts the turn: this call and every call
after it do not run, and the model is not asked again until the person
writes. Other keys that arrive within `guard_s` of the question appearing are
ignored: they were typed for the prompt input, not as an answer to a question
the person has not seen yet.

What the tool will do is shown exactly: any control character in the
command, the summary, the reason or a rule is drawn as a symbol (`␛`, `␍`),
never obeyed, so nothing (a `\r`, an escape sequence) can hide part of it.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.types import PermissionAnswer, PermissionRequest, Scope
from agentcli.terminal_text import visible_controls
from agentcli.ui.renderers import body_of

GUARD_S = 0.25
PREVIEW_LINES = 40

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


def options_text(request: PermissionRequest) -> Text:
    labels = {option.scope: option.label for option in request.options}
    text = Text("Do you want to proceed?\n", style="bold")
    for scope in ("once", "session"):
        if scope in labels:
            text.append(_option_line(scope, labels[scope]))
    text.append("  3. No, and tell the model what to do differently  (3/n)\n")
    if "always" in labels:
        text.append(_option_line("always", labels["always"]))
        text.append("     saved in .agentcli/settings.local.json\n")
    text.append("Esc interrupts the turn", style="dim")
    return text


def _option_line(scope: Scope, label: str) -> str:
    number, letter = SCOPE_KEYS[scope]
    return f"  {number}. {visible_controls(label)}  ({number}/{letter})\n"


class PermissionPrompt(Vertical, can_focus=True):
    """No id: the next question's prompt may be mounted while this one is being removed."""

    def __init__(self, question: PermissionQuestion, *, guard_s: float = GUARD_S) -> None:
        super().__init__(classes="permission")
        self.question = question
        self.request = question.request
        self.guard_s = guard_s
        self.shown_at = time.monotonic()
        self.ignored_keys = 0

    def compose(self) -> ComposeResult:
        req = self.request
        title = Text(visible_controls(req.title), style="bold")
        if req.asked_by is not None:  # a subagent asks: say which
            title.append(f"  (asked by {visible_controls(req.asked_by.label())})")
        yield Static(title, classes="permission-title")
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
