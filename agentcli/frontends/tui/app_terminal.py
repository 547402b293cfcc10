"""Whether the app can run where it was started, decided before it starts.

The app (Textual) reads keys from stdin and draws on stderr with escape
sequences that move the cursor. Where it cannot, it would draw nothing a
person can see and wait for keys that never come, saying nothing; instead
agentcli says why and exits 1 at once, pointing at `-p`:

- stdin is not a terminal (`agentcli < file`, a pipe, cron): no keys;
- stderr is not a terminal (`agentcli 2> log`): the screen would go there;
- TERM=dumb (Emacs' shell buffer, some CI consoles): the terminal says it
  cannot move the cursor, and the app's drawing would show as garbage.

TERM unset, or any other value, starts the app: Textual assumes an ANSI
terminal, which every terminal emulator in use is.

This module is imported on every start of the app (cli/main.py): nothing heavy.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

HEADLESS_HINT = "for one answer without the app: agentcli -p 'your prompt'"


def app_terminal_problem(
    environ: Mapping[str, str] = os.environ,
    stdin: TextIO | None = None,
    screen: TextIO | None = None,
) -> str | None:
    """Why the app cannot start here (None: it can). `screen`: the stream it draws on."""
    stdin = sys.stdin if stdin is None else stdin
    screen = sys.__stderr__ if screen is None else screen
    if not _is_terminal(stdin):
        return f"the app reads keys from a terminal, and stdin is not one; {HEADLESS_HINT}"
    if not _is_terminal(screen):
        return (
            "the app draws on the terminal through stderr, which is redirected; "
            f"run it without `2>`, or {HEADLESS_HINT}"
        )
    if environ.get("TERM", "").strip().lower() == "dumb":
        return (
            "this terminal says it cannot move the cursor (TERM=dumb), which the app needs; "
            "run agentcli in a terminal emulator (or set TERM if yours can, e.g. "
            f"TERM=xterm-256color), or {HEADLESS_HINT}"
        )
    return None


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False
