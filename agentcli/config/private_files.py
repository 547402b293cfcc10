"""Files agentcli keeps for the person: private (0600, folders 0700) whatever the umask.

Everything under AGENTCLI_HOME is someone's own: transcripts hold whole
conversations, saved tool outputs hold whatever a command printed (secrets
included), the prompt history what they typed. A umask of 022 would make all
of it readable by every account on the machine, so every writer there goes
through this module instead of `open()` and `mkdir()`:

- a folder is created 0700, and so is every missing folder above it (Python's
  own `mkdir(parents=True)` gives the parents the umask's mode);
- a file is created 0600 and set to exactly that after opening, so neither a
  permissive umask nor an older file left at 0644 keeps it readable.

Files in the project folder (what Edit and Write change, the project's
settings) are not private: at most they borrow `write_atomic`, with the mode
the file already has.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def make_private_dir(path: Path) -> Path:
    """`path` as a folder, creating it and its missing parents 0700; returns `path`.

    Folders that already exist are left as they are (the person's home, or a
    folder they made on purpose).
    """
    missing: list[Path] = []
    current = path
    while not current.is_dir():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:  # made meanwhile by another process (or not a folder: raises below)
            if not folder.is_dir():
                raise
            continue
        os.chmod(folder, DIR_MODE)  # mkdir's mode went through the umask
    return path


def open_private(path: Path, flags: int) -> int:
    """`os.open(path, flags)` for a file that is, and stays, 0600; returns the descriptor.

    `flags` says how to open it (O_WRONLY | O_CREAT | O_APPEND, ...); the
    folder must exist (`make_private_dir`).
    """
    fd = os.open(path, flags, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_private_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (a temp file, fsync, rename), 0600, folder 0700."""
    make_private_dir(path.parent)
    write_atomic(path, text.encode("utf-8"), FILE_MODE)


def write_atomic(path: Path, data: bytes, mode: int) -> None:
    """`path` holds `data` with `mode`, all at once: a temp file beside it, fsynced,
    renamed over it. Its folder must exist; a failure leaves `path` as it was."""
    import tempfile  # not on every start: most runs write no settings or approval file

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
