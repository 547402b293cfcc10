"""The sessions of a project: for `--continue`, `--resume ID` and the picker.

A session is a `<uuid>.jsonl` file in the project's folder under
AGENTCLI_HOME (other files there, like the prompt history, are not sessions).
Summaries are read cheaply: the first user prompt and a count of message
records, without repairing anything.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcli.config.paths import agentcli_home, project_dir
from agentcli.core.messages import text_of
from agentcli.session import records
from agentcli.session.jsonl import json_record

FIRST_PROMPT_CHARS = 200


@dataclass(frozen=True)
class SessionSummary:
    id: str
    path: Path
    started: datetime
    updated: datetime
    first_prompt: str
    message_count: int

    def matches(self, text: str) -> bool:
        """For the picker's filter: the id or the first prompt contains the text."""
        needle = text.lower()
        return needle in self.id.lower() or needle in self.first_prompt.lower()


def _is_session_file(path: Path) -> bool:
    if path.suffix != ".jsonl":
        return False
    try:
        uuid.UUID(path.stem)
    except ValueError:
        return False
    return True


def session_files(project: Path) -> list[Path]:
    folder = project_dir(project)
    try:
        return [p for p in folder.iterdir() if _is_session_file(p) and p.is_file()]
    except OSError:
        return []


def summarize(path: Path) -> SessionSummary | None:
    """A picker row for one transcript, or None if it cannot be read or holds no prompt."""
    try:
        stat = path.stat()
        handle = path.open(encoding="utf-8", errors="replace")
    except OSError:
        return None
    started: datetime | None = None
    first_prompt = ""
    count = 0
    with handle:
        for line in handle:
            record = json_record(line)
            if record is None:
                continue
            kind = record.get("type")
            if kind == records.SESSION and started is None:
                started = _parse_time(record.get("created"))
            elif kind in records.MESSAGE_TYPES:
                meta = record.get("meta")
                if isinstance(meta, dict) and (meta.get("kept") or meta.get("synthetic")):
                    continue
                count += 1
                message = record.get("message")
                if not first_prompt and kind == records.USER and isinstance(message, dict):
                    first_prompt = _prompt_text(message)
    if count == 0:
        return None
    updated = datetime.fromtimestamp(stat.st_mtime, UTC)
    return SessionSummary(
        id=path.stem,
        path=path,
        started=started or updated,
        updated=updated,
        first_prompt=first_prompt,
        message_count=count,
    )


def list_sessions(project: Path) -> list[SessionSummary]:
    """The project's sessions, most recently updated first."""
    found = [s for s in (summarize(p) for p in session_files(project)) if s is not None]
    return sorted(found, key=lambda s: s.updated, reverse=True)


def latest_session(project: Path) -> SessionSummary | None:
    """The session `--continue` resumes: the most recently written one of this folder."""
    files = sorted(session_files(project), key=_mtime, reverse=True)
    for path in files:
        summary = summarize(path)
        if summary is not None:
            return summary
    return None


def latest_session_path(project: Path) -> Path | None:
    """The transcript `--continue` resumes, as `latest_session` finds it, reading only up
    to each file's first message (not the whole file: the resume reads it once)."""
    for path in sorted(session_files(project), key=_mtime, reverse=True):
        if _holds_a_message(path):
            return path
    return None


def _holds_a_message(path: Path) -> bool:
    try:
        handle = path.open(encoding="utf-8", errors="replace")
    except OSError:
        return False
    with handle:
        for line in handle:
            record = json_record(line)
            if record is None or record.get("type") not in records.MESSAGE_TYPES:
                continue
            meta = record.get("meta")
            if not (isinstance(meta, dict) and (meta.get("kept") or meta.get("synthetic"))):
                return True
    return False


def find_session(project: Path, session_id: str) -> Path | None:
    """A session by id (or a unique prefix of it): this project first, then any project."""
    session_id = session_id.strip()
    if not session_id:
        return None
    for folder in (project_dir(project), None):
        candidates = (
            session_files(project)
            if folder is not None
            else [
                p for p in (agentcli_home() / "projects").glob("*/*.jsonl") if _is_session_file(p)
            ]
        )
        exact = [p for p in candidates if p.stem == session_id]
        if exact:
            return exact[0]
        prefixed = [p for p in candidates if p.stem.startswith(session_id)]
        if len(prefixed) == 1:
            return prefixed[0]
    return None


def _prompt_text(message: dict[str, Any]) -> str:
    text = " ".join(text_of(message).split())
    return text[:FIRST_PROMPT_CHARS]


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
