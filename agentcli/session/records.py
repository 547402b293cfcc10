"""The transcript's record format: one JSON object a line.

A transcript starts with a `session` record (format version, session id, cwd,
model, creation time). Then one record per message, in the order they were
completed:

    {"type": "user" | "assistant", "version": 1, "uuid": ..., "parentUuid": ...,
     "timestamp": ..., "sessionId": ..., "message": {API-shaped}, "meta": {...}}

A compaction writes a `compact_boundary` record, then the summary as a user
record (`meta.compactSummary`), then the kept recent messages again (`meta.kept`),
so the context after the last boundary can be read without the history before
it, and that history is still in the file. A `repair` record notes what a resume
fixed (a dropped partial line), so later loads do not report it again.

A person's prompt is recorded with `meta.promptId`, and its record's `uuid` is
that id (a copy kept by a compaction has a new uuid and the same promptId). A
`rewind` record (`promptId`) says the conversation went back to just before
that prompt: a loader drops that prompt and what follows it from the context
and the history, while the file keeps them (a branch, not a deletion).

Records carry only messages and metadata: never the API key or any header.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from agentcli.core.messages import Message
from agentcli.core.wellformed import json_line

FORMAT_VERSION = 1

SESSION = "session"
USER = "user"
ASSISTANT = "assistant"
COMPACT_BOUNDARY = "compact_boundary"
REPAIR = "repair"
REWIND = "rewind"
MESSAGE_TYPES = (USER, ASSISTANT)

# Meta keys that may go into a record; anything else a listener passes is dropped,
# so nothing secret can slip into the file through metadata.
ALLOWED_META = (
    "model",
    "usage",
    "cwd",
    "permissionMode",
    "stopReason",
    "compactSummary",
    "kept",
    "synthetic",
    "displays",  # what the person was shown of each tool call, by tool_use_id (tools/display.py)
    "promptId",  # a person's prompt: its id (the record's uuid, unless a kept copy)
)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_uuid() -> str:
    return str(uuid.uuid4())


def session_record(session_id: str, *, cwd: str, model: str) -> dict[str, Any]:
    return {
        "type": SESSION,
        "version": FORMAT_VERSION,
        "sessionId": session_id,
        "cwd": cwd,
        "model": model,
        "created": now_iso(),
    }


def message_record(
    message: Message,
    *,
    session_id: str,
    parent: str | None,
    meta: dict[str, Any] | None = None,
    record_id: str | None = None,
) -> dict[str, Any]:
    role = message.get("role")
    if role not in MESSAGE_TYPES:
        raise ValueError(f"not a message role: {role!r}")
    return {
        "type": role,
        "version": FORMAT_VERSION,
        "uuid": record_id or new_uuid(),
        "parentUuid": parent,
        "timestamp": now_iso(),
        "sessionId": session_id,
        "message": {"role": role, "content": message.get("content")},
        "meta": {k: v for k, v in (meta or {}).items() if k in ALLOWED_META},
    }


def boundary_record(
    *, session_id: str, parent: str | None, trigger: str, pre_tokens: int, kept: int
) -> dict[str, Any]:
    return {
        "type": COMPACT_BOUNDARY,
        "version": FORMAT_VERSION,
        "uuid": new_uuid(),
        "parentUuid": parent,
        "timestamp": now_iso(),
        "sessionId": session_id,
        "trigger": trigger,
        "preTokens": pre_tokens,
        "kept": kept,
    }


def rewind_record(*, session_id: str, parent: str | None, prompt_id: str) -> dict[str, Any]:
    return {
        "type": REWIND,
        "version": FORMAT_VERSION,
        "uuid": new_uuid(),
        "parentUuid": parent,
        "timestamp": now_iso(),
        "sessionId": session_id,
        "promptId": prompt_id,
    }


def repair_record(*, session_id: str, dropped_lines: list[int]) -> dict[str, Any]:
    return {
        "type": REPAIR,
        "version": FORMAT_VERSION,
        "timestamp": now_iso(),
        "sessionId": session_id,
        "droppedLines": dropped_lines,
    }


def dumps(record: dict[str, Any]) -> str:
    """One line of JSON (no newline inside: json escapes them) plus the newline.

    The line always encodes as UTF-8, whatever strings the record holds.
    """
    return json_line(record, separators=(",", ":")) + "\n"
