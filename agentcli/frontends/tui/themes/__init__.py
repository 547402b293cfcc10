"""Themes: .tcss files shipped in agentcli/frontends/tui/themes/, one per theme.

Every theme file is loaded with the app; each scopes its rules under
`App.theme-<name>`, so switching is adding a class (no stylesheet reload)
plus picking the matching Textual base theme for the built-in widgets.
The choice is remembered in settings.json ("theme").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.theme import Theme

THEMES_DIR = Path(__file__).resolve().parent
DEFAULT_THEME = "dark"

HIGH_CONTRAST = Theme(
    name="agentcli-high-contrast",
    primary="#ffff00",
    secondary="#00ffff",
    accent="#ffff00",
    warning="#ffaf00",
    error="#ff5f5f",
    success="#00ff00",
    foreground="#ffffff",
    background="#000000",
    surface="#000000",
    panel="#1c1c1c",
    dark=True,
)

BASE_THEMES = {
    "dark": "textual-dark",
    "light": "textual-light",
    "high-contrast": HIGH_CONTRAST.name,
}


def theme_files() -> list[Path]:
    return sorted(THEMES_DIR.glob("*.tcss"))


def theme_names() -> list[str]:
    """Themes with both a .tcss file and a base theme."""
    return [path.stem for path in theme_files() if path.stem in BASE_THEMES]


def apply_theme(app: App[Any], name: str) -> None:
    """Switch the running app to theme `name` (must be in theme_names())."""
    for other in BASE_THEMES:
        app.set_class(other == name, f"theme-{other}")
    app.theme = BASE_THEMES[name]
