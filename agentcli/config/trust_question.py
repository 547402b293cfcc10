"""Whether to ask the person to trust this folder, and remembering the answer.

`Options.trusted` (wiring/bootstrap.py) says whether the project's own settings files
apply in full; None means "as remembered" (trust.py). `-p` passes True (trust
is implied, as in Claude Code); the app asks first when `trust_question()`
lists something, then builds the engine with the answer. `/trust` asks again
(about wiring/bootstrap.py `project_withheld()`: the settings files' and the
`.mcp.json` servers').
"""

from __future__ import annotations

from pathlib import Path

from agentcli.config.json_store import JsonStoreError
from agentcli.config.settings import Settings
from agentcli.config.trust import declined, fingerprint, remember
from agentcli.config.untrusted import Withheld


def trust_question(settings: Settings, project: Path) -> list[Withheld]:
    """What to ask the person to trust before the session starts; [] for no question:
    the folder is trusted, its files enable nothing more than untrusted ones do (asking
    then would only teach people to say yes), or they said no to exactly this before."""
    if settings.trusted or not settings.withheld:
        return []
    if declined(project) == _fingerprint(settings.withheld):
        return []
    return settings.withheld


def remember_trust(project: Path, trusted: bool, items: list[Withheld]) -> str | None:
    """Remember the answer to `trust_question()`; a message when it is not remembered
    (it holds for this session either way)."""
    try:
        remembered = remember(project, trusted, _fingerprint(items))
    except (OSError, JsonStoreError) as exc:
        return (
            f"Could not remember your answer about this folder ({exc}): it holds for this "
            "session, and agentcli will ask again next time."
        )
    if not remembered:
        return (
            "Trusting your home folder or the root holds for this session only: remembered, "
            "it would trust every project below it."
        )
    return None


def _fingerprint(items: list[Withheld]) -> str:
    return fingerprint([f"{item.path}\0{item.key}\0{item.value}" for item in items])
