"""The folder-trust question, asked on start before a project's settings take effect.

It lists each thing the project's settings files would enable (every hook
command, environment variable, a looser mode, allow rule and extra folder),
with bypassPermissions in red, and takes 1/y (trust the folder) or 2/n/Esc
(continue without those settings). As with the permission question, keys that
arrive within `guard_s` of the screen appearing are ignored (they were typed
for the prompt, not as an answer to a question not yet seen); Esc never is,
since "no" is always safe. The screen returns True or False through `dismiss`.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from agentcli.config.untrusted import Withheld

GUARD_S = 0.25
YES_KEYS = {"1", "y"}
NO_KEYS = {"2", "n", "escape"}
_LABELS = {
    "hooks": "hook",
    "env": "env",
    "permissions.defaultMode": "mode",
    "permissions.allow": "allow",
    "permissions.additionalDirectories": "folder",
}
_BYPASS = "every tool call would run without asking"


def question_text(project: Path, items: list[Withheld]) -> Text:
    """The question: the folder, what its files would enable (file by file), the answers."""
    text = Text()
    text.append("Do you trust the files in this folder?\n", style="bold")
    text.append(f"{project}\n\n")
    text.append("If you trust it, its settings will enable:\n")
    for path in dict.fromkeys(item.path for item in items):
        text.append(f"  {_shown_path(path, project)}\n", style="bold")
        for item in (i for i in items if i.path == path):
            label = _LABELS.get(item.key, item.key)
            if item.dangerous:
                text.append(f"    {label:<7} {item.value}: {_BYPASS}\n", style="bold red")
            else:
                text.append(f"    {label:<7} ", style="dim")
                text.append(f"{item.value}\n")
    text.append(
        "\nHooks are commands agentcli runs on your machine: trust only a folder whose "
        "files you know. Deny and ask rules apply either way.\n\n",
        style="dim",
    )
    text.append("  1. Yes, trust this folder  (1/y)\n")
    text.append("  2. No, continue without the project's settings  (2/n, Esc)")
    return text


def _shown_path(path: Path, project: Path) -> str:
    try:
        return str(path.relative_to(project))
    except ValueError:
        return str(path)


class TrustQuestion(ModalScreen[bool]):
    DEFAULT_CSS = """
    TrustQuestion { align: center middle; }
    TrustQuestion > VerticalScroll {
        width: 90%; max-width: 120; height: auto; max-height: 90%;
        border: round $warning; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, project: Path, items: list[Withheld], *, guard_s: float = GUARD_S) -> None:
        super().__init__()
        self.project = project
        self.items = items
        self.guard_s = guard_s
        self.shown_at = time.monotonic()

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(question_text(self.project, self.items), id="trust-question")

    def on_mount(self) -> None:
        self.shown_at = time.monotonic()

    def on_key(self, event: events.Key) -> None:
        key = event.character if event.character and event.character.isprintable() else event.key
        key = (key or "").lower()
        if key not in YES_KEYS | NO_KEYS:
            return
        event.stop()
        event.prevent_default()
        if key == "escape":  # never guarded: "no" is always safe
            self.dismiss(False)
        elif time.monotonic() - self.shown_at >= self.guard_s:
            self.dismiss(key in YES_KEYS)
