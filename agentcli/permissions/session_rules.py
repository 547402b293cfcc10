"""A session's mode and rules, as the parts of the permission decision read them.

The policy (policy.py `PermissionPolicy`) holds them and decides; what it
hands a call to, the web rules (web_rules.py) and the search filter
(search_filter.py), reads the same rules through this Protocol, so it does
not need to know the policy that calls it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from agentcli.config.rules import Rule
from agentcli.permissions.hardlinks import LinkScanner
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import Workspace


class SessionRules(Protocol):
    @property
    def workspace(self) -> Workspace: ...

    @property
    def mode(self) -> PermissionMode: ...

    @property
    def allow(self) -> Sequence[Rule]: ...

    @property
    def ask(self) -> Sequence[Rule]: ...

    @property
    def deny(self) -> Sequence[Rule]: ...

    @property
    def locked_reason(self) -> str | None:
        """Set when deny or ask rules could not be read: nothing runs without asking."""

    def link_scanner(self) -> LinkScanner:
        """Where the other names of a hard-linked file are looked for (hardlinks.py)."""
