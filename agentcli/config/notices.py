"""What the settings mean for the person, in words.

The same sentences on start (the app's notes, headless stderr), in `/status`
and `/permissions`, and in `agentcli config`: skipped settings files, keys
ignored (a mistake, or a Claude Code setting agentcli does not use), protection uncertain (deny rules that could not be read), project settings
withheld in a folder not trusted, and the bypassPermissions warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agentcli.config.settings import Settings

BYPASS_MODE = "bypassPermissions"
BYPASS_WARNING = (
    "every tool call runs without asking (deny rules still hold). "
    "Use it only in a sandbox you can throw away."
)


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the person must know before the first prompt. `danger`: shown so it
    cannot be missed (bypassPermissions); `info`: worth a line in the app, not a warning
    on every `-p` run (Claude Code keys agentcli does not use: they are no mistake)."""

    text: str
    level: Literal["info", "warning", "error", "danger"] = "warning"


def startup_notices(settings: Settings, mode: str) -> list[Notice]:
    """What the settings say at start; `mode` is the permission mode the session
    starts in."""
    notices = [Notice(f"settings: {problem}") for problem in settings.problems]
    notices += [Notice(f"settings: {line}", "info") for line in settings.unsupported]
    if settings.uncertain:
        notices.append(Notice(uncertain_notice(settings), "error"))
    if settings.withheld:
        notices.append(Notice(withheld_notice(settings)))
    if mode == BYPASS_MODE:
        notices.append(
            Notice(f"{BYPASS_MODE} mode{_mode_origin(settings)}: {BYPASS_WARNING}", "danger")
        )
    return notices


def withheld_notice(settings: Settings) -> str:
    """The project's settings that do not apply because the folder is not trusted."""
    files = ", ".join(str(path) for path in dict.fromkeys(i.path for i in settings.withheld))
    shown = "; ".join(f"{item.key}: {item.value}" for item in settings.withheld)
    return (
        f"This folder is not trusted, so its settings ({files}) apply only in part: "
        f"ignored {shown}. Their deny and ask rules apply. /trust to decide again."
    )


def uncertain_notice(settings: Settings) -> str:
    """The fail-closed state, and what ends it."""
    return (
        f"Protection uncertain: {'; '.join(settings.uncertain)}. Until that is fixed (then "
        "restart agentcli), every tool call asks first, whatever the mode or allow rules, and "
        "a run with -p refuses them; the deny rules that could be read still apply."
    )


def _mode_origin(settings: Settings) -> str:
    """` (from ...)`: where the mode was set."""
    source = settings.default_mode.source if settings.default_mode else None
    if source == "command line":
        return " (from --permission-mode)"
    layer = next((x for x in settings.layers if x.name == source), None)
    if layer is None:
        return ""
    whose = "the project's settings" if layer.in_project else "your settings"
    return f" (from {whose}, {layer.path})"
