"""Taking an earlier session to go on with it: in place, or as a fork when it is busy.

Two processes appending to one transcript would interleave two conversations
in one file. So going on with a session first takes its lock (lock.py); when
another process holds it, the session is forked instead: a new session id
whose transcript starts as a copy of the original, with a header naming the
session it came from (`forkedFrom`). The original file is never written by
the process that forked it.

The copy keeps the original's lines, and so its record ids and the line
numbers that repair records refer to, up to the end of the last answer the
model finished: a turn still running in the other process is that process's
own. Only the header line is replaced. The fork's file is written with its
first message, like any new session's, so opening one and quitting leaves
nothing behind.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import IO, Any

from agentcli.session import records
from agentcli.session.jsonl import json_record
from agentcli.session.loader import LoadedSession, TranscriptError, load_session, parse_transcript
from agentcli.session.lock import SessionBusy, open_locked


def lock_or_fork(path: Path) -> IO[str] | LoadedSession:
    """The transcript at `path` open and locked for writing, or, when another process
    holds it, a fork of it loaded whole. A missing or unreadable file is a
    TranscriptError that says so."""
    try:
        return open_locked(path)
    except SessionBusy:
        return fork_session(path)
    except FileNotFoundError:
        raise TranscriptError(f"{path}: no such transcript") from None
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot open the transcript: {exc.strerror}") from None


def claim_session(path: Path, *, context_only: bool = False) -> LoadedSession:
    """The session at `path`, loaded and held for writing; a fork of it if it is busy.
    `context_only`: load only what the next request needs (loader.load_session)."""
    handle = lock_or_fork(path)
    if isinstance(handle, LoadedSession):
        return handle
    try:
        loaded = load_session(path, context_only=context_only)
    except TranscriptError:
        handle.close()
        raise
    loaded.lock = handle
    return loaded


def fork_session(path: Path) -> LoadedSession:
    """A new session that starts with the conversation of the one at `path`."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read the transcript: {exc.strerror}") from None
    fork_id = str(uuid.uuid4())
    parent_id, preamble = _fork_text(raw, path.stem, fork_id)
    loaded = parse_transcript(preamble.encode(), path.with_name(f"{fork_id}.jsonl"))
    loaded.forked_from = parent_id
    loaded.preamble = preamble
    loaded.notices.insert(
        0,
        f"session {parent_id} is open in another agentcli process; "
        f"continuing in a new session {fork_id}",
    )
    return loaded


def _fork_text(raw: bytes, parent_id: str, fork_id: str) -> tuple[str, str]:
    """(the parent's id, the fork's first lines): its header, then the parent's
    complete lines up to the last answer, the parent's header left out."""
    lines = raw.decode("utf-8", errors="replace").split("\n")[:-1]
    end = _end_of_last_answer(lines)
    header = json_record(lines[0]) if lines else None
    if header is not None and header.get("type") == records.SESSION:
        parent_id = str(header.get("sessionId") or parent_id)
        kept = lines[1:end]
    else:
        header, kept = {}, lines[:end]
    fork_header = records.session_record(
        fork_id, cwd=str(header.get("cwd", "")), model=str(header.get("model", ""))
    )
    text = records.dumps({**fork_header, "forkedFrom": parent_id})
    return parent_id, text + "".join(line + "\n" for line in kept)


def _end_of_last_answer(lines: list[str]) -> int:
    """How many lines reach the last assistant message that called no tool (0: none)."""
    for index in range(len(lines) - 1, -1, -1):
        record = json_record(lines[index])
        if record is not None and record.get("type") == records.ASSISTANT and _answers(record):
            return index + 1
    return 0


def _answers(record: dict[str, Any]) -> bool:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return True
    return isinstance(content, list) and not any(
        isinstance(b, dict) and b.get("type") == "tool_use" for b in content
    )
