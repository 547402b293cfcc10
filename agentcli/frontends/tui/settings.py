"""The UI's remembered choices in $AGENTCLI_HOME/settings.json (today: "theme").

Written through agentcli.config.json_store, so other keys (written by people
or other parts of agentcli) are kept, and a broken file is reported, never
overwritten; the file is private (0600), like everything under AGENTCLI_HOME.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.config.json_store import JsonStoreError, read_json_object, update_json_object
from agentcli.config.paths import agentcli_home


def settings_path() -> Path:
    return agentcli_home() / "settings.json"


def load_theme() -> tuple[str | None, str | None]:
    """(theme name or None, problem message or None)."""
    path = settings_path()
    try:
        data = read_json_object(path)
    except JsonStoreError as exc:
        return None, str(exc)
    theme = data.get("theme")
    if theme is None:
        return None, None
    if not isinstance(theme, str):
        return None, f'{path}: "theme" must be a string, found {type(theme).__name__}'
    return theme, None


def save_theme(name: str) -> str | None:
    """Remember the theme; returns a problem message instead of raising."""

    def mutate(data: dict[str, Any]) -> None:
        data["theme"] = name

    try:
        update_json_object(settings_path(), mutate, private=True)
    except (JsonStoreError, OSError) as exc:
        return str(exc)
    return None
