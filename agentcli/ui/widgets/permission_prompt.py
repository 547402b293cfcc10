"""The permission question: what the tool will do, and the answers.

1/y allow once; 2/a allow for this session; 3/n no (the turn carries on and
the model is told why, with the person's words if they typed some after Tab);
4/p allow and save the rule in the project's local settings. The rules a
"session" or "always" answer adds come from the gate (`PermissionRequest.rules`)
and are shown exactly as they will be saved; an edit's diff is the tool's own
preview, with the file's real line numbers.

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

import asyncio
import time

from rich.text import Text
from textual import events
from textual.containers import Vertical
from textual.widgets import Input, Static

from agentcli.permissions.types import PermissionAnswer, PermissionRequest, Scope
from agentcli.terminal_text import visible_controls
from agentcli.ui.widgets.diff_view import DiffView

GUARD_S = 0.25
PREVIEW_LINES = 40

ALLOW_KEYS: dict[str, Scope] = {
    "1": "once",
    "y": "once",
    "2": "session",
    "a": "session",
    "4": "always",
    "p": "always",
}
DENY_KEYS = {"3", "n"}
EXIT_PLAN_MODE = "ExitPlanMode"


def offered_scopes(request: PermissionRequest) -> set[Scope]:
    """The answers that mean something for this call: "session" and "always" add the
    request's rules, so without rules they are not offered (leaving plan mode for the
    session is the one "session" answer that needs none)."""
    if request.tool_name == EXIT_PLAN_MODE:
        return {"once", "session"}
    return {"once", "session", "always"} if request.rules else {"once"}


def options_text(request: PermissionRequest) -> Text:
    scopes = offered_scopes(request)
    rules = ", ".join(f"`{visible_controls(rule)}`" for rule in request.rules)
    text = Text("Do you want to proceed?\n", style="bold")
    text.append("  1. Yes  (1/y)\n")
    if request.tool_name == EXIT_PLAN_MODE:
        text.append("  2. Yes, and accept edits for the rest of this session  (2/a)\n")
    elif "session" in scopes:
        text.append(f"  2. Yes, and don't ask again for {rules} this session  (2/a)\n")
    text.append("  3. No, and tell the model what to do differently  (3/n)\n")
    if "always" in scopes:
        text.append(
            f"  4. Yes, and don't ask again for {rules} in this project  (4/p)\n"
            "     saved in .agentcli/settings.local.json\n"
        )
    text.append("Esc interrupts the turn", style="dim")
    return text


class PermissionPrompt(Vertical, can_focus=True):
    def __init__(self, request: PermissionRequest, *, guard_s: float = GUARD_S) -> None:
        super().__init__(id="permission")
        self.request = request
        self.guard_s = guard_s
        self.answer: asyncio.Future[PermissionAnswer] = asyncio.get_running_loop().create_future()
        self.shown_at = time.monotonic()
        self.ignored_keys = 0

    def compose(self):
        req = self.request
        title = {"Bash": "Bash command", "Edit": "Edit file", "Write": "Write file"}.get(
            req.tool_name, f"Use {req.tool_name}"
        )
        yield Static(Text(visible_controls(title), style="bold"), classes="permission-title")
        body = req.subject or req.summary or ""
        if body:
            yield Static(Text(visible_controls(body)), classes="permission-subject")
        preview = req.preview
        if isinstance(preview, dict) and preview.get("kind") == "diff":
            yield DiffView(preview, max_lines=PREVIEW_LINES, classes="permission-diff")
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

    def _resolve(self, answer: PermissionAnswer) -> None:
        if not self.answer.done():
            self.answer.set_result(answer)

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
            self._resolve(PermissionAnswer(allow=True, scope=ALLOW_KEYS[key]))
        elif key in DENY_KEYS:
            feedback = self.query_one("#permission-feedback", Input).value.strip()
            self._resolve(PermissionAnswer(allow=False, feedback=feedback or None))
        elif event.key == "tab":
            self.query_one("#permission-feedback", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._resolve(PermissionAnswer(allow=False, feedback=event.value.strip() or None))

    def interrupt(self) -> None:
        """Esc: refuse this call and stop the turn."""
        self._resolve(PermissionAnswer(allow=False, interrupt=True))
