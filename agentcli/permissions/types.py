"""The vocabulary shared by the policy, the engine and the UI."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal


class PermissionMode(StrEnum):
    DEFAULT = "default"
    ACCEPT_EDITS = "acceptEdits"
    PLAN = "plan"
    BYPASS = "bypassPermissions"


Behavior = Literal["allow", "ask", "deny"]


@dataclass(frozen=True, slots=True)
class Decision:
    behavior: Behavior
    reason: str = ""
    rule: str | None = None


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """What the person is asked about."""

    tool_name: str
    tool_use_id: str
    input: dict[str, Any]
    summary: str
    reason: str
    subject: str | None = None  # Bash: the command
    path: Path | None = None
    preview: Any = None  # from the tool (Edit, Write: the diff it will make, real line numbers)
    rules: tuple[str, ...] = ()  # what a "session" or "always" answer would allow from now on


Scope = Literal["once", "session", "always"]


@dataclass(frozen=True, slots=True)
class PermissionAnswer:
    """The person's answer. `interrupt` (Esc at the question) refuses this call and
    stops the whole turn: nothing else runs, and the model is not asked again
    until the person writes. A plain refusal lets the turn carry on."""

    allow: bool
    scope: Scope = "once"
    feedback: str | None = None
    interrupt: bool = False


Approver = Callable[[PermissionRequest], Awaitable[PermissionAnswer]]
