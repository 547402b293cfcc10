"""The app's keys: Esc, Ctrl+C and Shift+Tab, whose meaning depends on the moment.

Esc stops whatever runs (a permission question, a `!` command, the turn, the
making of a message); on an empty prompt, pressed twice, it opens the rewind.
Ctrl+C copies a selection, else clears the prompt, else quits when pressed
twice. Shift+Tab cycles the permission mode. The App's `action_*` methods,
which Textual's bindings call, forward here.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.ui.app import AgentApp

MODE_CYCLE = ["default", "acceptEdits", "plan"]
QUIT_WINDOW_S = 2.0
REWIND_WINDOW_S = 2.0  # Esc twice on an empty prompt within this opens the rewind


class KeyActions:
    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self._last_ctrl_c = 0.0
        self._last_escape = 0.0

    def interrupt(self) -> None:
        app = self.app
        if app.permission_prompt is not None:
            app.permission_prompt.interrupt()
        if app.shell_run is not None:
            app.shell_run.kill()
        if app.engine is not None and app.engine.busy:
            app.engine.interrupt()
            app.status_line.set_verb("Interrupting")
        elif app.making_message:  # reading `@` attachments, fetching an MCP prompt
            app.turn_worker.cancel()
        elif not app.prompt.text and app.permission_prompt is None:
            self._escape_on_empty_prompt()

    def _escape_on_empty_prompt(self) -> None:
        """Esc twice on an empty prompt opens the rewind; the first one says so."""
        app = self.app
        now = time.monotonic()
        if now - self._last_escape < REWIND_WINDOW_S:
            self._last_escape = 0.0
            app.open_rewind()
        elif app.engine is not None and app.engine.prompt_ids():
            self._last_escape = now
            app.notify("Press Esc again to rewind", timeout=REWIND_WINDOW_S)

    def ctrl_c(self) -> None:
        app = self.app
        selected = app.screen.get_selected_text()
        if selected:
            app.copy_to_clipboard(selected)
            app.screen.clear_selection()
            return
        if app.prompt.text:
            app.prompt.set_text("")
            app.prompt_flow.close_popup()
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW_S:
            app.exit()
            return
        self._last_ctrl_c = now
        app.notify("Press Ctrl+C again to exit", timeout=QUIT_WINDOW_S)

    def cycle_mode(self) -> None:
        """Default, acceptEdits, plan; and bypassPermissions when the session began in it."""
        app = self.app
        if app.engine is None:
            return
        from agentcli.permissions.types import PermissionMode

        policy = app.engine.gate.policy
        cycle = list(MODE_CYCLE)
        if app.initial_mode == "bypassPermissions":
            cycle.append("bypassPermissions")
        current = str(policy.mode)
        index = cycle.index(current) if current in cycle else -1
        policy.mode = PermissionMode(cycle[(index + 1) % len(cycle)])
        app.refresh_status()
