"""The app's keys: Esc, Ctrl+C, Shift+Tab and Ctrl+B, whose meaning depends on the moment.

Esc stops whatever runs (a permission question, a `!` command, the turn, the
making of a message); on an empty prompt, pressed twice, it opens the rewind.
Ctrl+C copies a selection, else clears the prompt, else quits when pressed
twice. Shift+Tab cycles the permission mode. Ctrl+B moves the running Bash
command to the background (it goes on as a task of /tasks and the turn goes on;
Esc would have stopped it). The App's `action_*` methods,
which Textual's bindings call, forward here.

A first Esc or Ctrl+C on the empty prompt arms its key: the status bar says
what a second press does, for `double_press_s`. One state holds both the
meaning and the hint, so they end together: when the time is up, when the
second press comes, when the rewind opens, when the person types.

What Esc stops belongs to the turn runner: its `interrupt` is given here. The
keys get a `KeyHost`: the few things of the app they read or call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.timer import Timer

    from agentcli.frontends.tui.state import AppState
    from agentcli.frontends.tui.widgets.prompt_input import PromptInput
    from agentcli.frontends.tui.widgets.status import StatusBar

MODE_CYCLE = ["default", "acceptEdits", "plan"]
DOUBLE_PRESS_S = 2.0  # a second Esc / Ctrl+C within this opens the rewind / quits
REWIND_HINT = "Press Esc again to rewind"
EXIT_HINT = "Press Ctrl+C again to exit"
NOTHING_TO_BACKGROUND = "No command is running to move to the background"


class KeyHost(Protocol):
    """What the keys need of the app."""

    @property
    def state(self) -> AppState: ...
    @property
    def prompt(self) -> PromptInput: ...
    @property
    def status_bar(self) -> StatusBar: ...
    @property
    def screen(self) -> Screen[Any]: ...
    def set_timer(self, delay: float, callback: Any) -> Timer: ...
    def copy_to_clipboard(self, text: str) -> None: ...
    def close_popup(self) -> None: ...
    def open_rewind(self) -> None: ...
    def refresh_status(self) -> None: ...
    def exit(self) -> None: ...


class KeyActions:
    def __init__(self, app: KeyHost, interrupt_turn: Callable[[], bool]) -> None:
        """`interrupt_turn`: stops what runs; True when no turn was running."""
        self.app = app
        self.interrupt_turn = interrupt_turn
        self.double_press_s = DOUBLE_PRESS_S
        self.armed: str | None = None  # "escape" or "ctrl+c", after a first press
        self._expiry: Timer | None = None

    def _arm(self, key: str, hint: str) -> None:
        self.disarm()
        self.armed = key
        self.app.status_bar.show_hint(hint)
        self._expiry = self.app.set_timer(self.double_press_s, self.disarm)

    def disarm(self) -> None:
        """The first press no longer counts, and its hint goes."""
        if self._expiry is not None:
            self._expiry.stop()
            self._expiry = None
        if self.armed is not None:
            self.armed = None
            self.app.status_bar.show_hint("")

    def interrupt(self) -> None:
        if self.interrupt_turn() and not self.app.prompt.text:
            self._escape_on_empty_prompt()

    def _escape_on_empty_prompt(self) -> None:
        """Esc twice on an empty prompt opens the rewind; the first one says so."""
        app = self.app
        if self.armed == "escape":
            app.open_rewind()  # which disarms
        elif app.state.engine is not None and app.state.engine.prompt_ids():
            self._arm("escape", REWIND_HINT)

    def ctrl_c(self) -> None:
        app = self.app
        selected = app.screen.get_selected_text()
        if selected:
            app.copy_to_clipboard(selected)
            app.screen.clear_selection()
            return
        if app.prompt.text:
            app.prompt.set_text("")
            app.close_popup()
            return
        if self.armed == "ctrl+c":
            self.disarm()
            app.exit()
            return
        self._arm("ctrl+c", EXIT_HINT)

    def cycle_mode(self) -> None:
        """Default, acceptEdits, plan; and bypassPermissions when the session began in it."""
        app = self.app
        engine = app.state.engine
        if engine is None:
            return
        from agentcli.permissions.types import PermissionMode

        policy = engine.gate.policy
        cycle = list(MODE_CYCLE)
        if app.state.initial_mode == "bypassPermissions":
            cycle.append("bypassPermissions")
        current = str(policy.mode)
        index = cycle.index(current) if current in cycle else -1
        policy.mode = PermissionMode(cycle[(index + 1) % len(cycle)])
        app.refresh_status()

    def to_background(self) -> None:
        """Ctrl+B: the running foreground Bash commands go on as background tasks (their
        calls return at once, saying so); with none running, the bar says so a moment."""
        engine = self.app.state.engine
        board = engine.workspace.background if engine is not None else None
        if board is not None and board.move_foreground():
            return
        self._arm("ctrl+b", NOTHING_TO_BACKGROUND)
