"""One writer per transcript: a lock held while a process may append to it.

The lock is `flock` on the transcript itself, taken when a process creates or
resumes the file and held until its writer closes it. The kernel drops it
when the process dies, however it dies (kill -9 included), so a crash never
leaves a session stuck. Two processes (or two writers in one process) never
hold it at once: the second one gets `SessionBusy` and forks (claim.py).

A new transcript is written under a temporary name, locked, then renamed into
place, so no other process ever sees it unlocked. Transcripts are private
(0600 in 0700 folders: config/private_files.py).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from agentcli.config.private_files import make_private_dir, open_private


class SessionBusy(OSError):
    """Another writer holds the transcript."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path.name} is open in another agentcli process")


def open_locked(path: Path) -> IO[str]:
    """The existing transcript at `path`, open for appending and locked.
    Raises SessionBusy when another writer holds it."""
    fd = open_private(path, os.O_WRONLY | os.O_APPEND)  # an older 0644 one becomes private
    return _locked(os.fdopen(fd, "a", encoding="utf-8", newline="\n"), path)


def create_locked(path: Path, preamble: str) -> IO[str]:
    """A new transcript at `path` holding `preamble`, open for appending and locked."""
    make_private_dir(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = open_private(temporary, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_TRUNC)
    handle = _locked(os.fdopen(fd, "a", encoding="utf-8", newline="\n"), temporary)
    try:
        handle.write(preamble)
        handle.flush()
        os.fsync(handle.fileno())
        os.rename(temporary, path)
    except OSError:
        handle.close()
        temporary.unlink(missing_ok=True)
        raise
    return handle


def _locked(handle: IO[str], path: Path) -> IO[str]:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise SessionBusy(path) from None
    return handle
