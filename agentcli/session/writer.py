"""Writing the transcript as the conversation happens: append-only, flushed early.

The writer is a QueryEngine's transcript. Each message is appended as soon as it
is complete and flushed to the OS at once, so a SIGKILL loses at most the
message being streamed; at every turn boundary (the person's prompt, the tool
results, a final answer) the file is also fsynced, so a power cut loses no
completed turn either. The file is created lazily: a session that never sends
a message leaves no file behind. The writer holds the file's lock (lock.py)
from its creation, or from the resume that claimed it, until `close()`.

Nothing is ever rewritten. Resuming a session whose file ends in a cut line
first ends that line, then notes the repair in a `repair` record.

A failure to write (disk full, permissions) must not kill the person's
session: it is kept in `problem` for the front end to show, once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from agentcli.config.paths import project_dir
from agentcli.core.messages import Message
from agentcli.session import records
from agentcli.session.jsonl import ends_with_newline
from agentcli.session.lock import create_locked, open_locked

if TYPE_CHECKING:
    from agentcli.session.loader import LoadedSession


def transcript_path(project: Path, session_id: str) -> Path:
    return project_dir(project) / f"{session_id}.jsonl"


class TranscriptWriter:
    def __init__(
        self,
        path: Path,
        *,
        session_id: str,
        cwd: str,
        model: str,
        permission_mode: Callable[[], str] | None = None,
    ) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self.model = model
        self.permission_mode = permission_mode
        self.last_uuid: str | None = None
        self.problem: str | None = None
        self._file: IO[str] | None = None
        self._preamble: str | None = None  # what a new file starts with (default: a header)
        self._end_cut_line = False  # check the end of an existing file before appending
        self._pending: list[dict[str, Any]] = []  # records to write before the next one

    # -- resuming ---------------------------------------------------------------

    def resume(self, loaded: LoadedSession) -> None:
        """Go on with a loaded session: take over its claim (the locked file, or
        a fork's preamble), chain after its last record, and record the repairs
        the loader made (with the next message, so a resumed session that sends
        nothing leaves the file untouched)."""
        self.path = loaded.path
        self.last_uuid = loaded.last_uuid
        self._file, loaded.lock = loaded.lock, None
        self._preamble = loaded.preamble
        self._end_cut_line = self._file is not None
        if loaded.dropped_lines:
            self._pending.append(
                records.repair_record(
                    session_id=self.session_id, dropped_lines=list(loaded.dropped_lines)
                )
            )
        for message in loaded.synthetic:
            self._pending.append(self._message_record(message, {"synthetic": True}))

    # -- the listener -----------------------------------------------------------

    def __call__(self, message: Message, meta: dict[str, Any]) -> None:
        """The engine tells it `(message, meta)` as each message completes."""
        compact = meta.get("compact")
        batch: list[dict[str, Any]] = []
        if isinstance(compact, dict):
            boundary = records.boundary_record(
                session_id=self.session_id,
                parent=self.last_uuid,
                trigger=str(compact.get("trigger", "manual")),
                pre_tokens=int(compact.get("preTokens", 0)),
                kept=int(compact.get("kept", 0)),
            )
            self.last_uuid = boundary["uuid"]
            batch.append(boundary)
            meta = {**meta, "compactSummary": True}
        batch.append(self._message_record(message, meta))
        self._write(batch, sync=_is_turn_boundary(message))

    def rewind(self, prompt_id: str) -> None:
        """The conversation went back to just before that prompt: a `rewind` record."""
        record = records.rewind_record(
            session_id=self.session_id, parent=self.last_uuid, prompt_id=prompt_id
        )
        self.last_uuid = record["uuid"]
        self._write([record], sync=True)

    def _message_record(self, message: Message, meta: dict[str, Any]) -> dict[str, Any]:
        full = {"cwd": self.cwd, **meta}
        if self.permission_mode is not None:
            full["permissionMode"] = self.permission_mode()
        prompt_id = meta.get("promptId")
        own_id = prompt_id if isinstance(prompt_id, str) and not meta.get("kept") else None
        record = records.message_record(
            message, session_id=self.session_id, parent=self.last_uuid, meta=full, record_id=own_id
        )
        self.last_uuid = record["uuid"]
        return record

    # -- the file ---------------------------------------------------------------

    def _write(self, batch: list[dict[str, Any]], *, sync: bool) -> None:
        if self.problem is not None:
            return
        try:
            handle = self._open()
            if self._pending:
                batch = self._pending + batch
                self._pending = []
            handle.write("".join(records.dumps(r) for r in batch))
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        except OSError as exc:
            self.problem = f"cannot write the transcript {self.path}: {exc.strerror or exc}"

    def _open(self) -> IO[str]:
        if self._file is None:
            if self.path.exists():  # resumed without a claim: take the lock now
                self._file = open_locked(self.path)
                self._end_cut_line = True
            else:
                self._file = create_locked(self.path, self._preamble or self._header())
        if self._end_cut_line:
            self._end_cut_line = False
            if not ends_with_newline(self.path):
                self._file.write("\n")  # end a cut line so it stays alone (and is skipped)
        return self._file

    def _header(self) -> str:
        return records.dumps(
            records.session_record(self.session_id, cwd=self.cwd, model=self.model)
        )

    def sync(self) -> None:
        if self._file is not None and self.problem is None:
            try:
                self._file.flush()
                os.fsync(self._file.fileno())
            except OSError as exc:
                self.problem = f"cannot write the transcript {self.path}: {exc.strerror or exc}"

    def close(self) -> None:
        self.sync()
        if self._file is not None:
            self._file.close()
            self._file = None


def _is_turn_boundary(message: Message) -> bool:
    """A user message (prompt, tool results) or a final answer ends a step worth syncing."""
    if message.get("role") == "user":
        return True
    content = message.get("content")
    return not (
        isinstance(content, list)
        and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)
    )
