"""The idle notification: after an answer the prompt waits for the person; once it has
waited IDLE_NOTIFY_S (Claude Code's 60 s), the Notification hooks run with
`notification_type: "idle_prompt"`, once per wait.

Only the app has it: `-p`, the SDK and ACP never wait at a prompt for a person
(their one Notification is the permission question's, engine/orchestration.py).
Sending the next message, or another turn starting from the queue, cancels the
wait. Nothing is armed when no Notification hook takes `idle_prompt`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentcli.config.hook_events import HookEvent
from agentcli.hooks.events import Hooks

IDLE_NOTIFY_S = 60.0
IDLE_MESSAGE = "agentcli is waiting for your input"

SetTimer = Callable[[float, Callable[[], None]], Any]  # Textual's set_timer: a Timer back


class IdleNotifier:
    """One pending idle notification at most, on the app's timers."""

    def __init__(self, set_timer: SetTimer, delay_s: float = IDLE_NOTIFY_S) -> None:
        self._set_timer = set_timer
        self.delay_s = delay_s
        self._timer: Any = None

    @property
    def armed(self) -> bool:
        """A notification is pending (the prompt is waiting, and a hook wants to hear)."""
        return self._timer is not None

    def arm(self, hooks: Hooks | None) -> None:
        """The prompt waits from now: notify once it has waited `delay_s`."""
        self.disarm()
        if hooks is None or not hooks.has(HookEvent.NOTIFICATION, "idle_prompt"):
            return
        self._timer = self._set_timer(self.delay_s, lambda: self._fire(hooks))

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _fire(self, hooks: Hooks) -> None:
        self._timer = None
        hooks.notify(IDLE_MESSAGE, "idle_prompt")
