"""The vocabulary shared by the policy, the engine and the UI.

The question and its answer (`PermissionRequest`, `PermissionAnswer`, `PermissionOption`,
`Asker`) are pydantic models, in permissions/question_models.py: they load when a
question is first asked or a subagent starts, not on every start.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


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


Scope = Literal["once", "session", "always"]
