"""Folder trust: which project folders may run what their own files configure.

A cloned repository is somebody else's code. Its `.agentcli/` settings can
name hooks (commands agentcli runs), environment variables, a permission mode,
allow rules and extra folders, so they take effect only in a folder the person
said they trust. This module remembers those answers; what a project file may
do before it is trusted is settings.py's (and, later, the `.mcp.json`
loader's) business, through `is_trusted()`.

The answers live in `$AGENTCLI_HOME/trusted-folders.json` (private), keyed by
the folder's real path (symlinks resolved, so a link to a folder is the same
folder). A folder inside a trusted folder is trusted, as in Claude Code,
unless the person said no to it (the nearest answer above a folder decides).
A "no" is remembered with a fingerprint of what the folder's settings would
have enabled, so the question comes back only when that changes.

Trusting the home folder or the file system's root is not remembered: it
would trust every project below it, so the caller keeps that answer for the
running session only (Claude Code does the same for the home folder).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcli.config.json_store import JsonStoreError, read_json_object, update_json_object
from agentcli.config.paths import agentcli_home


def trust_file() -> Path:
    return agentcli_home() / "trusted-folders.json"


def is_trusted(project: Path) -> bool:
    """True when the nearest answer for `project` or a folder above it is "yes"."""
    real = project.resolve()
    folders = _folders()
    for folder in (real, *real.parents):
        entry = folders.get(str(folder))
        trusted = entry.get("trusted") if isinstance(entry, dict) else None
        if isinstance(trusted, bool):
            return trusted
    return False


def declined(project: Path) -> str | None:
    """The fingerprint remembered with a "no" for exactly this folder, or None."""
    entry = _folders().get(str(project.resolve()))
    if isinstance(entry, dict) and entry.get("trusted") is False:
        return str(entry.get("fingerprint", ""))
    return None


def remember(project: Path, trusted: bool, fingerprint: str = "") -> bool:
    """Record the person's answer for `project`; False when it is not remembered
    (a "yes" for the home folder or the root: the caller keeps it for the session).
    Raises OSError or JsonStoreError when the file cannot be written."""
    real = project.resolve()
    if trusted and too_broad(real):
        return False
    entry: dict[str, Any] = {"trusted": trusted, "at": datetime.now(UTC).isoformat()}
    if not trusted:
        entry["fingerprint"] = fingerprint

    def record(data: dict[str, Any]) -> None:
        folders = data.get("folders")
        if not isinstance(folders, dict):
            folders = data["folders"] = {}
        folders[str(real)] = entry

    update_json_object(trust_file(), record, private=True)
    return True


def fingerprint(items: list[str]) -> str:
    """A short digest of what a folder's settings would enable."""
    return hashlib.sha256("\n".join(sorted(items)).encode()).hexdigest()[:16]


def too_broad(folder: Path) -> bool:
    """The root or the home folder: trusting it would trust every project below."""
    real = folder.resolve()
    return real == Path(real.anchor) or real == Path.home().resolve()


def _folders() -> dict[str, Any]:
    """The remembered answers; none when the file is missing or unreadable (then
    every folder counts as not trusted, which only asks more)."""
    try:
        folders = read_json_object(trust_file()).get("folders")
    except JsonStoreError:
        return {}
    return folders if isinstance(folders, dict) else {}
