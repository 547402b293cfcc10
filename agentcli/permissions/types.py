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
    preview: Any = None  # for an edit: the diff it would make, when cheap to compute


Scope = Literal["once", "session", "always"]


@dataclass(frozen=True, slots=True)
class PermissionAnswer:
    allow: bool
    scope: Scope = "once"
    feedback: str | None = None


Approver = Callable[[PermissionRequest], Awaitable[PermissionAnswer]]
