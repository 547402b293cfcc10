"""What a skipped settings file still contributes: the parts that only protect.

A file with one wrong key is skipped as a whole (see settings.py), so a typo
never half-applies. But dropping its deny and ask rules, its hooks (a
PreToolUse hook may refuse a call), a stricter mode or a sandbox it turns on
would loosen protection because of a typo somewhere else, so those parts are
checked on their own and kept when they make sense. What it allowed (allow rules,
folders, a looser mode) goes with the file: losing it only makes agentcli
ask more.

When the deny or ask rules themselves cannot be understood, even leniently,
nobody can say what the file meant to forbid: `rules_unknown` tells the
caller to fail closed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from agentcli.config.hooks import HooksConfig
from agentcli.config.settings_schema import MODES, Mode, RuleList


@cache
def _rules() -> TypeAdapter[list[str]]:
    """Built when first needed: only a settings file that fails to load is salvaged."""
    return TypeAdapter(RuleList)


@dataclass
class Salvage:
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    mode: Mode | None = None
    hooks: HooksConfig | None = None
    sandbox: bool = False  # `"sandbox": {"enabled": true}`
    rules_unknown: bool = False  # deny or ask rules are there but cannot be read

    def kept(self) -> list[str]:
        """What still applies, in words: ["deny rules", "hooks"]."""
        parts = [
            ("deny rules", self.deny),
            ("ask rules", self.ask),
            ("hooks", self.hooks),
            ("sandbox", self.sandbox),
        ]
        return [name for name, value in parts if value]


def salvage(raw: dict[str, Any]) -> Salvage:
    """The protective parts of a settings object that failed validation."""
    sandbox = raw.get("sandbox")
    found = Salvage(
        hooks=_hooks(raw.get("hooks")),
        sandbox=isinstance(sandbox, dict) and sandbox.get("enabled") is True,
    )
    permissions = raw.get("permissions") or {}  # null, [] and "" hold no rules
    if not isinstance(permissions, dict):  # deny and ask may be in there: unknowable
        found.rules_unknown = True
        return found
    for kind in ("deny", "ask"):
        if permissions.get(kind) is None:
            continue
        try:
            setattr(found, kind, _rules().validate_python(permissions[kind]))
        except ValidationError:
            found.rules_unknown = True
    mode = permissions.get("defaultMode")
    found.mode = mode if mode in MODES else None
    return found


def _hooks(raw: Any) -> HooksConfig | None:
    if raw is None:
        return None
    try:
        hooks = HooksConfig.model_validate(raw)
    except ValidationError:
        return None
    return None if hooks.is_empty() else hooks
