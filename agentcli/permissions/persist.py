"""Remembering "always allow" answers in `<project>/.agentcli/settings.local.json`.

The file is the person's own (not committed), so the update keeps every other
key and rule, adds only rules not already there, and is atomic (json_store).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.config.json_store import update_json_object
from agentcli.config.rules import Rule


def local_settings_path(root: Path) -> Path:
    return root / ".agentcli" / "settings.local.json"


def remember_allow_rules(root: Path, rules: list[Rule]) -> Path:
    """Append `rules` to permissions.allow of the project's local settings."""
    path = local_settings_path(root)

    def add(data: dict[str, Any]) -> None:
        permissions = data.get("permissions")
        if not isinstance(permissions, dict):
            permissions = data["permissions"] = {}
        allow = permissions.get("allow")
        if isinstance(allow, str):  # one rule written as a string (settings read it so)
            allow = permissions["allow"] = [allow]
        if not isinstance(allow, list):
            allow = permissions["allow"] = []
        for rule in rules:
            if str(rule) not in allow:
                allow.append(str(rule))

    update_json_object(path, add)
    return path
