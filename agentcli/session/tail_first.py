"""Resuming in two steps: the newest messages to show now, the whole session after.

The app shows a resumed session's newest messages from the transcript's tail
(session/tail.py) before it has read the rest, then reads the bytes in front
of the tail once and parses the whole file into the session the engine goes
on with (`TailFirst.complete`). Nothing is sent before that: the prompt queue
waits for the engine, which is built on the whole session, so a prompt typed
meanwhile carries the whole context.

The session is claimed (its lock taken) before the tail is read, so no other
agentcli appends to it between the two reads. A session another process holds
is forked as before (claim.py), from one read of the whole file: there is no
tail step then (`open_tail_first` returns the loaded fork).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO

from agentcli.session.claim import lock_or_fork
from agentcli.session.loader import LoadedSession, TranscriptError, parse_tail, parse_transcript
from agentcli.session.tail import Tail, read_tail

# The lines read first: more than two screens of the newest items (each message
# is a line, and most show as one to a few items).
TAIL_LINES = 400


@dataclass
class TailFirst:
    """A claimed session whose newest lines are read (`tail`: for display only)."""

    path: Path
    tail: LoadedSession
    _lock: IO[str]
    _read: Tail

    def complete(self) -> LoadedSession:
        """The whole session, claimed: the bytes in front of the tail read once, then
        the whole file parsed (its repairs and notices those of any load)."""
        try:
            raw = self._read.whole_file()
        except OSError as exc:
            self.release()
            raise TranscriptError(
                f"{self.path}: cannot read the transcript: {exc.strerror}"
            ) from None
        loaded = parse_transcript(raw, self.path)
        loaded.lock = self._lock
        return loaded

    def release(self) -> None:
        """Give up the claim without reading the rest."""
        self._read.close()
        self._lock.close()


def open_tail_first(path: Path, lines: int | None = None) -> TailFirst | LoadedSession:
    """The session at `path`, claimed, its last `lines` (TAIL_LINES) lines read and
    parsed; a fork of it, loaded whole, when another process holds it."""
    lock = lock_or_fork(path)
    if isinstance(lock, LoadedSession):
        return lock
    try:
        file = path.open("rb")
    except OSError as exc:
        lock.close()
        raise TranscriptError(f"{path}: cannot read the transcript: {exc.strerror}") from None
    try:
        read = read_tail(file, TAIL_LINES if lines is None else lines)
    except OSError as exc:
        file.close()
        lock.close()
        raise TranscriptError(f"{path}: cannot read the transcript: {exc.strerror}") from None
    return TailFirst(path=path, tail=parse_tail(read.data, path), _lock=lock, _read=read)
