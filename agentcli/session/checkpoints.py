"""Checkpoints: what each file held before the agent changed it, prompt by prompt.

A session's checkpoints are one append-only log beside its transcript,
`<project folder>/checkpoints/<session-id>.jsonl`, private like the
transcript, and the file contents it names live in a content-addressed blob
store shared by the project's sessions (checkpoint_blobs.py). The log is
chronological, one JSON object a line:

- `prompt`: the person sent a prompt (its id is the transcript record's, so
  `--resume` and a rewind agree), with its time and text;
- `before`: a file's state (content hash, or "did not exist", with the
  highest of its folders that did not exist either) just before the agent's
  first change to it in that prompt: once per file per prompt;
- `after`: what the file held after the agent's change (or after a rewind
  restored it): what a later rewind compares with the disk to tell the
  person's own changes from the agent's;
- `rewind`: the conversation went back to before a prompt; that prompt and
  the ones after it are no longer offered.

Restoring code to before prompt P means, for every file the log recorded
after P's `prompt` line, putting back its first `before` state after that
line, whichever branch of the conversation the change was made in
(rewind.py). Nothing is recorded about files the agent did not write, and no
git command runs: shell commands' changes are not tracked.

The engine calls `begin_prompt`, `before_write` and `after_write` (the
`Checkpoints` protocol in engine/parts.py); each line is flushed and fsynced
before the tool changes the file, so a crash mid-edit still leaves the
checkpoint.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from agentcli.config.paths import project_dir
from agentcli.config.private_files import make_private_dir, open_private
from agentcli.session.checkpoint_blobs import BlobStore, FileState, file_hash
from agentcli.session.jsonl import ends_with_newline, json_record
from agentcli.session.records import dumps, now_iso
from agentcli.session.restore_paths import RestoreRoots

PROMPT_TEXT_CHARS = 200


def checkpoints_root(project: Path) -> Path:
    """The project's checkpoint folder: session logs and `blobs/`."""
    return project_dir(project) / "checkpoints"


@dataclass(frozen=True)
class PromptMark:
    """A prompt the person sent, as the checkpoint log knows it."""

    id: str
    time: datetime
    text: str

    @property
    def first_line(self) -> str:
        return self.text.strip().split("\n", 1)[0]


@dataclass(frozen=True)
class _Before:
    prompt_id: str
    path: Path
    state: FileState


@dataclass(frozen=True)
class _Rewound:
    prompt_id: str


_Entry = PromptMark | _Before | _Rewound


class UnknownPrompt(LookupError):
    """No prompt with this id in the session's checkpoints."""


class SessionCheckpoints:
    """The checkpoints of one session: its log, read at open and appended to."""

    def __init__(
        self,
        root: Path,
        session_id: str,
        *,
        forked_from: str | None = None,
        project: Path | None = None,
        extra_dirs: Sequence[Path] = (),
    ) -> None:
        """`forked_from`: the session a fork started as a copy of; its log is read
        first (never written), so the fork can rewind to the prompts it inherited.
        `project`: the project folder; the folders made for a new file are recorded
        (and removed by a rewind) only inside it. A rewind changes files only in it
        and in `extra_dirs`, the session's added folders (restore_paths.py)."""
        self.root = root
        self.project = Path(os.path.realpath(project)) if project is not None else None
        self.extra_dirs = list(extra_dirs)
        self.session_id = session_id
        self.blobs = BlobStore(root / "blobs")
        self.path = root / f"{session_id}.jsonl"
        self._entries: list[_Entry] = []
        self._after: dict[Path, str | None] = {}  # hash after the last recorded write
        self._current: str | None = None
        self._recorded: set[Path] = set()  # files recorded for the current prompt
        self._file: IO[str] | None = None
        self._lock = threading.Lock()
        if forked_from is not None:
            self._read(root / f"{forked_from}.jsonl")
        self._read(self.path)

    @classmethod
    def for_session(
        cls,
        project: Path,
        session_id: str,
        *,
        forked_from: str | None = None,
        extra_dirs: Sequence[Path] = (),
    ) -> SessionCheckpoints:
        return cls(
            checkpoints_root(project),
            session_id,
            forked_from=forked_from,
            project=project,
            extra_dirs=extra_dirs,
        )

    # -- recording (the engine) -------------------------------------------------

    def begin_prompt(self, prompt_id: str, text: str) -> None:
        """A new prompt: the files the agent changes from now on are recorded again."""
        mark = PromptMark(prompt_id, datetime.now(UTC), text[:PROMPT_TEXT_CHARS])
        with self._lock:
            self._current, self._recorded = prompt_id, set()
            self._entries.append(mark)
            self._append({"type": "prompt", "id": prompt_id, "time": now_iso(), "text": mark.text})

    def before_write(self, paths: Sequence[Path]) -> None:
        """Record each file's content before its first change in this prompt."""
        with self._lock:
            if self._current is None:
                return
            for path in _real(paths):
                if path in self._recorded:
                    continue
                state = self.blobs.record(path)
                if not state.exists and self.project is not None:
                    state = FileState(False, new_folder=_new_folder(path, self.project))
                self._entries.append(_Before(self._current, path, state))
                self._append(
                    {
                        "type": "before",
                        "prompt": self._current,
                        "path": str(path),
                        "state": state.to_json(),
                    }
                )
                self._recorded.add(path)

    def after_write(self, paths: Sequence[Path]) -> None:
        """Note what the agent left in each file (a person's later change shows as a
        difference from this)."""
        with self._lock:
            for path in _real(paths):
                self._note_after(path, file_hash(path))

    def restored(self, path: Path, sha256: str | None) -> None:
        """A rewind put `path` back: that is now the last state agentcli wrote."""
        with self._lock:
            self._note_after(path, sha256)

    def conversation_rewound(self, prompt_id: str) -> None:
        """The conversation went back to before `prompt_id`: it and later prompts go."""
        with self._lock:
            self._entries.append(_Rewound(prompt_id))
            self._append({"type": "rewind", "prompt": prompt_id, "time": now_iso()})

    # -- reading (rewind) --------------------------------------------------------

    def prompts(self) -> list[PromptMark]:
        """The prompts of the conversation as it stands, oldest first."""
        live: list[PromptMark] = []
        for entry in self._entries:
            if isinstance(entry, PromptMark):
                live.append(entry)
            elif isinstance(entry, _Rewound):
                ids = [mark.id for mark in live]
                if entry.prompt_id in ids:
                    del live[ids.index(entry.prompt_id) :]
        return live

    def prompt(self, prompt_id: str) -> PromptMark:
        for entry in self._entries:
            if isinstance(entry, PromptMark) and entry.id == prompt_id:
                return entry
        raise UnknownPrompt(prompt_id)

    def states_before(self, prompt_id: str) -> dict[Path, FileState]:
        """Each file the agent changed since `prompt_id` (in any branch), as it was
        before its first change after that prompt."""
        start = self._index_of(prompt_id)
        states: dict[Path, FileState] = {}
        for entry in self._entries[start:]:
            if isinstance(entry, _Before) and entry.path not in states:
                states[entry.path] = entry.state
        return {p: s for p, s in states.items() if self.last_written(p) != _hash_of(s)}

    def changed_since(self, prompt_id: str) -> list[Path]:
        """The files the agent changed since `prompt_id` (what a list of prompts shows)."""
        return list(self.states_before(prompt_id))

    def find(self, prefix: str) -> PromptMark:
        """A prompt by id or unique id prefix. Raises UnknownPrompt (saying why)."""
        marks = {e.id: e for e in self._entries if isinstance(e, PromptMark)}
        if prefix in marks:
            return marks[prefix]
        found = [mark for pid, mark in marks.items() if prefix and pid.startswith(prefix)]
        if len(found) != 1:
            raise UnknownPrompt(prefix if not found else f"{prefix} (more than one prompt)")
        return found[0]

    def last_written(self, path: Path) -> str | None:
        """The hash of what the agent (or a rewind) last left in `path`; None: absent."""
        return self._after.get(path)

    def restore_roots(self) -> RestoreRoots:
        """The folders a rewind may change files in: the project and its added
        folders, as they are now (none without a project)."""
        if self.project is None:
            return RestoreRoots(())
        return RestoreRoots.of([self.project, *self.extra_dirs])

    def has_blob(self, state: FileState) -> bool:
        return bool(state.sha256) and self.blobs.path_of(state.sha256 or "").is_file()

    def read_blob(self, state: FileState) -> bytes | None:
        return self.blobs.read(state.sha256) if state.stored and state.sha256 else None

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    # -- the log -------------------------------------------------------------------

    def _index_of(self, prompt_id: str) -> int:
        for index, entry in enumerate(self._entries):
            if isinstance(entry, PromptMark) and entry.id == prompt_id:
                return index
        raise UnknownPrompt(prompt_id)

    def _note_after(self, path: Path, sha256: str | None) -> None:
        self._after[path] = sha256
        self._append({"type": "after", "path": str(path), "sha256": sha256})

    def _append(self, record: dict[str, Any]) -> None:
        if self._file is None:
            make_private_dir(self.root)
            fd = open_private(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            self._file = os.fdopen(fd, "a", encoding="utf-8")
            if self._file.tell() and not ends_with_newline(self.path):
                self._file.write("\n")  # a cut last line stays alone (and is skipped)
        self._file.write(dumps(record))
        self._file.flush()
        os.fsync(self._file.fileno())

    def _read(self, path: Path) -> None:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        for line in text.split("\n"):
            record = json_record(line)
            if record is not None:
                self._load(record)

    def _load(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind == "prompt" and isinstance(record.get("id"), str):
            time = _time(record.get("time"))
            text = record.get("text")
            self._entries.append(
                PromptMark(record["id"], time, text if isinstance(text, str) else "")
            )
        elif kind == "before" and isinstance(record.get("path"), str):
            state = FileState.from_json(record.get("state"))
            if state is not None and isinstance(record.get("prompt"), str):
                self._entries.append(_Before(record["prompt"], Path(record["path"]), state))
        elif kind == "after" and isinstance(record.get("path"), str):
            sha = record.get("sha256")
            self._after[Path(record["path"])] = sha if isinstance(sha, str) else None
        elif kind == "rewind" and isinstance(record.get("prompt"), str):
            self._entries.append(_Rewound(record["prompt"]))


def _real(paths: Iterable[Path]) -> list[Path]:
    """The files themselves: a symlink's target is what an edit changes."""
    return [Path(os.path.realpath(path)) for path in paths]


def _new_folder(path: Path, project: Path) -> Path | None:
    """The highest folder of `path` inside `project` that does not exist (yet)."""
    highest = None
    folder = path.parent
    while folder != project and folder.is_relative_to(project) and not os.path.lexists(folder):
        highest, folder = folder, folder.parent
    return highest


def _hash_of(state: FileState) -> str | None:
    return state.sha256 if state.exists else None


def _time(value: object) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
    return datetime.fromtimestamp(0, UTC)
