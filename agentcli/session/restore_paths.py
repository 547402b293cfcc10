"""Every change a rewind makes on disk, reached from a root folder without following a link.

A rewind writes where the agent wrote earlier, but the folders on the way may
have changed since: a shell command, the person or another program can have
replaced `sub/` by a link to `../outside`, and a restore that opens
`project/sub/secret` by its path would then overwrite or delete
`outside/secret`. So no restore operation opens a path. Each one starts at
one of the session's roots (the project folder and its added folders, their
real paths as they are now) and walks down one folder at a time with
`openat(..., O_NOFOLLOW | O_DIRECTORY)`, then acts on the last name relative
to the folder it holds open (`dir_fd`): the write (a temp file renamed over
the name), the delete, the `mkdir` of a missing folder, the `rmdir` of an
empty one, the permission bits (set on the open temp file). A folder that is
a link now, even one pointing inside the project, is refused, and so is a
file that is a link now or no regular file; a path that is outside every
root, or climbs out with `..`, is refused before anything is opened. Since
each step holds the folder it reached, a folder replaced by a link after
that step cannot redirect the operation.

What it does not cover: a folder *moved* (renamed, not linked) out of the
project while a restore holds it open; the roots themselves are the person's
and are followed as they are.

`Refused` says why, in words for the report (the caller names the file).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

OUTSIDE = "it is outside the project and its added folders (a rewind changes nothing there)"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_CHUNK = 1024 * 1024


class Refused(Exception):
    """This file cannot be reached without following a link, or leaving the roots."""


@dataclass(frozen=True)
class RestoreRoots:
    """The folders a rewind may change files in (real paths, deepest match wins)."""

    folders: tuple[Path, ...]

    @classmethod
    def of(cls, folders: Iterable[Path]) -> RestoreRoots:
        real = (Path(os.path.realpath(folder)) for folder in folders)
        return cls(tuple(dict.fromkeys(real)))

    def locate(self, path: Path) -> tuple[Path, tuple[str, ...]]:
        """The root `path` lies in and the names below it, down to the file's own."""
        inside = [root for root in self.folders if path != root and path.is_relative_to(root)]
        if not path.is_absolute() or not inside:
            raise Refused(OUTSIDE)
        root = max(inside, key=lambda folder: len(folder.parts))
        names = path.relative_to(root).parts
        if any(name in ("", ".", "..") for name in names):
            raise Refused("its recorded path climbs out with `..`")
        return root, names


class _Missing(Exception):
    """A folder on the way does not exist (and was not to be made)."""


def current_hash(roots: RestoreRoots, path: Path) -> str | None:
    """The SHA-256 of the regular file at `path` now; None when there is none."""
    try:
        with _folder_of(roots, path, create=False) as (folder, name):
            _check_name(folder, name)
            try:
                fd = os.open(name, _READ_FLAGS, dir_fd=folder)
            except FileNotFoundError:
                return None
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.EMLINK):  # made a link just now
                    raise Refused("it is a symbolic link now (a rewind follows no link)") from None
                raise
            with os.fdopen(fd, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    raise Refused("it is not a regular file now")
                digest = hashlib.sha256()
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
                return digest.hexdigest()
    except _Missing:
        return None


def write_file(roots: RestoreRoots, path: Path, data: bytes, mode: int) -> None:
    """`path` holds `data` with `mode`, all at once (a temp file beside it, fsynced,
    renamed over it); its missing folders are made again."""
    with _folder_of(roots, path, create=True) as (folder, name):
        _check_name(folder, name)
        temp = f".{name[:120]}.{secrets.token_hex(6)}.tmp"
        fd = os.open(temp, _TEMP_FLAGS, 0o600, dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                os.fchmod(handle.fileno(), mode)
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder)
            raise


def delete_file(roots: RestoreRoots, path: Path) -> None:
    """No file at `path` any more (already none: nothing to do)."""
    try:
        with _folder_of(roots, path, create=False) as (folder, name):
            if _check_name(folder, name):
                os.unlink(name, dir_fd=folder)
    except (_Missing, FileNotFoundError):
        return


def remove_empty_folder(roots: RestoreRoots, path: Path) -> bool:
    """Remove the folder `path` if it is empty; whether it was removed."""
    try:
        with _folder_of(roots, path, create=False) as (folder, name):
            os.rmdir(name, dir_fd=folder)  # never through a link: rmdir does not follow one
    except (_Missing, Refused, OSError):
        return False
    return True


@contextlib.contextmanager
def _folder_of(roots: RestoreRoots, path: Path, *, create: bool) -> Iterator[tuple[int, str]]:
    """The folder holding `path`, opened from its root one folder at a time with no
    link followed, and the file's own name. `create`: make missing folders."""
    root, names = roots.locate(path)
    folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for depth, name in enumerate(names[:-1], start=1):
            below = _open_folder(folder, name, "/".join(names[:depth]), create)
            os.close(folder)
            folder = below
        yield folder, names[-1]
    finally:
        os.close(folder)


def _open_folder(parent: int, name: str, shown: str, create: bool) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise _Missing from None
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise
        raise Refused(_not_a_folder(parent, name, shown)) from None
    with contextlib.suppress(FileExistsError):  # made meanwhile: opened as any other
        os.mkdir(name, dir_fd=parent)
    return _open_folder(parent, name, shown, create=False)


def _not_a_folder(parent: int, name: str, shown: str) -> str:
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return f"its folder {shown} could not be opened"
    if stat.S_ISLNK(info.st_mode):
        return f"its folder {shown} is a symbolic link now (a rewind follows no link)"
    return f"its folder {shown} is not a folder now"


def _check_name(folder: int, name: str) -> bool:
    """Whether something is at `name`; Refused when it is a link or no regular file."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode):
        raise Refused("it is a symbolic link now (a rewind follows no link)")
    if not stat.S_ISREG(info.st_mode):
        raise Refused("it is not a regular file now")
    return True
