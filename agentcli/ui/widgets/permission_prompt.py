"""The permission question: what the tool will do, and three answers.

1/y allow once, 2/a allow for this session, 3/n/Esc deny. Tab moves to a
field where the person can tell the model what to do instead (Enter there
denies with that text). Keys that arrive within `guard_s` of the prompt
appearing are ignored: they were typed for the prompt input, not as an
answer to a question the person has not seen yet.

What the tool will do is shown exactly: any control character in the
command, the summary or the reason is drawn as a symbol (`␛`, `␍`), never
obeyed, so nothing (a `\r`, an escape sequence) can hide part of it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from rich.text import Text
from textual import events
from textual.containers import Vertical
from textual.widgets import Input, Static

from agentcli.permissions.types import PermissionAnswer, PermissionRequest
from agentcli.terminal_text import visible_controls
from agentcli.ui.widgets.diff_view import DiffView

GUARD_S = 0.25
PREVIEW_LINES = 40

ALLOW_KEYS = {"1": "once", "y": "once", "2": "session", "a": "session"}
DENY_KEYS = {"3", "n", "escape"}


def edit_preview(request: PermissionRequest) -> dict[str, Any] | None:
    """A diff record for an Edit/Write question: the engine's preview, or one built
    from the input (old_string/new_string, or the new content)."""
    if isinstance(request.preview, dict) and request.preview.get("kind") == "diff":
        return request.preview
    inp = request.input
    if request.tool_name == "Edit" and "new_string" in inp:
        old = str(inp.get("old_string", "")).splitlines()
        new = str(inp.get("new_string", "")).splitlines()
        lines = [f"-{line}" for line in old] + [f"+{line}" for line in new]
    elif request.tool_name == "Write" and "content" in inp:
        new = str(inp["content"]).splitlines()
        old = []
        lines = [f"+{line}" for line in new]
    else:
        return None
    hunk = {"old_start": 1, "old_lines": len(old), "new_start": 1, "new_lines": len(new)}
    hunk["lines"] = lines[:PREVIEW_LINES]
    return {"kind": "diff", "path": request.summary, "hunks": [hunk]}


def scope_hint(request: PermissionRequest) -> str:
    if request.subject:
        words = request.subject.split()
        keep = 2 if len(words) > 1 and not words[1].startswith("-") else 1
        return f"Yes, and don't ask again for `{' '.join(words[:keep])}` commands this session"
    return f"Yes, allow {request.tool_name} for this session"


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
        diff = edit_preview(req) if req.tool_name in ("Edit", "Write") else None
        if diff is not None:
            yield DiffView(diff, classes="permission-diff")
        if req.reason:
            reason = Text(f"({visible_controls(req.reason)})", style="dim")
            yield Static(reason, classes="permission-reason")
        question = Text("Do you want to proceed?\n", style="bold")
        question.append("  1. Yes  (1/y)\n")
        question.append(f"  2. {visible_controls(scope_hint(req))}  (2/a)\n")
        question.append("  3. No, and tell the model what to do differently  (3/n/esc)")
        yield Static(question, classes="permission-options")
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
        if time.monotonic() - self.shown_at < self.guard_s:
            self.ignored_keys += 1
            return
        key = event.character if event.character and event.character.isprintable() else event.key
        key = key.lower() if key else ""
        if key in ALLOW_KEYS:
            self._resolve(PermissionAnswer(allow=True, scope=ALLOW_KEYS[key]))  # type: ignore[arg-type]
        elif key in DENY_KEYS or event.key == "escape":
            feedback = self.query_one("#permission-feedback", Input).value.strip()
            self._resolve(PermissionAnswer(allow=False, feedback=feedback or None))
        elif event.key == "tab":
            self.query_one("#permission-feedback", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._resolve(PermissionAnswer(allow=False, feedback=event.value.strip() or None))

    def deny(self) -> None:
        """Answer no (the turn was interrupted while the question was open)."""
        self._resolve(PermissionAnswer(allow=False))
