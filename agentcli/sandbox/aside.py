"""Moving what a sandboxed command left at an agent place out of the way, never deleting it.

A rename, so nothing is copied however big (a cloned repository) and nothing
is lost: into agentcli's folder for the project (which sandboxed commands
cannot see), under the same path; when that is on another disk, beside
itself, under a name no tool reads (`CLAUDE.md.left-by-a-sandboxed-command`).

The folders on the way are opened one by one without following links: another
command still running (a subagent's) could turn one into a link, and a rename
through it would move something else, such as the project's own `.claude`.
A folder the command made read-only (`chmod 555`) is made writable for the
rename and given its mode back.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

LEFT_SUFFIX = ".left-by-a-sandboxed-command"
# A handle on a folder that needs no permission on it (a command may have made it
# `chmod 100`), never on a link: O_NOFOLLOW with O_DIRECTORY refuses one.
_FOLDER = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OWNER_RWX = stat.S_IRWXU


def move_aside(root: str, path: str, target: Path) -> Path:
    """Rename `path` (inside the folder `root`, reached without following a link) to
    `target`, or to a free name beside itself when `target` is on another disk; where it
    is now. OSError when it cannot be moved (it is then where it was)."""
    parts = Path(os.path.relpath(path, root)).parts
    if not parts or parts[0] == ".." or os.path.isabs(parts[0]):
        raise OSError(errno.EINVAL, "not inside the writable folder", path)
    parent = open_folder(root, parts[:-1])
    try:
        return _rename(parent, parts[-1], Path(root, *parts[:-1]), target)
    finally:
        os.close(parent)


def free_name(path: Path) -> Path:
    """`path`, or `path.2`, `path.3`... whichever does not exist yet."""
    count, candidate = 1, path
    while os.path.lexists(candidate):
        count += 1
        candidate = path.with_name(f"{path.name}.{count}")
    return candidate


def open_folder(root: str, names: Sequence[str]) -> int:
    """A handle (O_PATH) on the folder `names` lead to from `root`, each one opened in the
    one before without following a link; OSError when one is not a folder (any more)."""
    fd = os.open(root, _FOLDER)
    try:
        for name in names:
            inner = os.open(name, _FOLDER, dir_fd=fd)  # ELOOP/ENOTDIR: it is a link now
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _rename(parent: int, name: str, parent_path: Path, target: Path) -> Path:
    # A rename in or out of a folder needs its owner to be able to write it.
    with owner_may(parent, _OWNER_RWX), _folder_writable_at(parent, name):
        target.parent.mkdir(parents=True, exist_ok=True)
        destination = free_name(target)
        try:
            os.rename(name, destination, src_dir_fd=parent)
            return destination
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
        beside = _free_at(parent, name + LEFT_SUFFIX)
        os.rename(name, beside, src_dir_fd=parent, dst_dir_fd=parent)
        return parent_path / beside


def _free_at(parent: int, name: str) -> str:
    count, candidate = 1, name
    while _exists_at(parent, candidate):
        count += 1
        candidate = f"{name}.{count}"
    return candidate


def _exists_at(parent: int, name: str) -> bool:
    try:
        os.lstat(name, dir_fd=parent)
    except FileNotFoundError:
        return False
    return True


@contextmanager
def owner_may(fd: int, bits: int) -> Iterator[None]:
    """The folder handle `fd` with the owner's permission `bits` added for the time of the
    `with`, its mode as it was after."""
    mode = stat.S_IMODE(os.fstat(fd).st_mode)
    changed = mode & bits != bits
    if changed:
        _chmod(fd, mode | bits)
    try:
        yield
    finally:
        if changed:
            _chmod(fd, mode)


def _chmod(fd: int, mode: int) -> None:
    """chmod through an O_PATH handle: the kernel's name for what it holds, no lookup."""
    os.chmod(f"/proc/self/fd/{fd}", mode)


@contextmanager
def _folder_writable_at(parent: int, name: str) -> Iterator[None]:
    """A folder moved into another folder must be writable itself (its `..` changes)."""
    try:
        folder = stat.S_ISDIR(os.lstat(name, dir_fd=parent).st_mode)
    except OSError:
        folder = False
    if not folder:
        yield
        return
    fd = os.open(name, _FOLDER, dir_fd=parent)
    try:
        with owner_may(fd, _OWNER_RWX):
            yield
    finally:
        os.close(fd)
