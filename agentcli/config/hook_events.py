"""The hook events, and what a session's hooks are read through (`HookTable`).

config/hooks.py says what the `hooks` key of settings means and holds its models
(`HooksConfig`, `HookMatcher`, `HookCommand`), which import pydantic: they load when a
settings file, a plugin or an SDK program has hooks. A session without hooks holds
`NO_HOOKS`, made without them (a `HookTable` as a `HooksConfig` is: what the session's
hooks, hooks/events.py, read). This module is what every start imports.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypeVar

DEFAULT_TIMEOUT_S = 60.0


class HookEvent(StrEnum):
    PRE_TOOL_USE = "PreToolUse"
    POST_TOOL_USE = "PostToolUse"
    USER_PROMPT_SUBMIT = "UserPromptSubmit"
    STOP = "Stop"
    SESSION_START = "SessionStart"
    SESSION_END = "SessionEnd"
    NOTIFICATION = "Notification"
    POST_TOOL_USE_FAILURE = "PostToolUseFailure"
    PERMISSION_REQUEST = "PermissionRequest"
    SUBAGENT_START = "SubagentStart"
    SUBAGENT_STOP = "SubagentStop"
    PRE_COMPACT = "PreCompact"
    POST_COMPACT = "PostCompact"


# The events about one tool call (their matchers name tools; a subagent's payload
# names the subagent too).
TOOL_EVENTS = frozenset(
    {
        HookEvent.PRE_TOOL_USE,
        HookEvent.POST_TOOL_USE,
        HookEvent.POST_TOOL_USE_FAILURE,
        HookEvent.PERMISSION_REQUEST,
    }
)


T = TypeVar("T")


class _NoHooks:
    """No hooks at all, without pydantic: what a session whose settings have none holds
    (a `HookTable`, config/hooks.py)."""

    def commands(self, event: HookEvent, subject: str | None = None) -> tuple[()]:
        return ()

    def merged(self, other: T) -> T:
        return other

    def is_empty(self) -> bool:
        return True

    def model_dump(self, *, exclude_none: bool = False) -> dict[str, Any]:
        return {event.value: [] for event in HookEvent}

    def __repr__(self) -> str:
        return "NO_HOOKS"


NO_HOOKS = _NoHooks()
