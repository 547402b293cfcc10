"""Holding a protected name that does not exist, for the time of one command, and no longer.

bwrap can only mount over a path that exists. So, for a missing `.claude`,
`AGENTS.md`, `.git`... agentcli makes an empty folder there (mode 1555:
read-only and sticky, which marks it as a placeholder; git does not list
an empty folder) just before the command starts, the sandbox
mounts it read-only, and the command can neither write into it nor remove,
rename or replace it. When the command has ended, the folder is removed
again (`rmdir`: only ever an empty one).

Other sandboxed commands may be using the same placeholder: another session
in the same project, or a subagent's command beside its parent's. Removing
a folder that is a mount point in another command's sandbox would take the
mount away there (Linux detaches it), so each command holds a shared
`flock` on the folders its protected places are in while it runs, and a
placeholder is only removed under an exclusive one, which no running
command lets through. A placeholder left by a session that was killed (an
empty folder of mode 1555 at a protected path) is removed by the next command
that ends while no other one runs.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path

PLACEHOLDER_MODE = 0o1555  # read-only, and the sticky bit no project folder has
_LOCK_TRIES = 100
_LOCK_PAUSE_S = 0.02  # up to 2 s for another command's clean-up to finish


class HeldPlaces:
    """The locks and placeholders of one running command; `release()` after it ended."""

    def __init__(self) -> None:
        self._locks: dict[str, int] = {}
        self.created: list[Path] = []

    def acquire(self, places: Sequence[Path], missing: Sequence[Path]) -> None:
        """Lock the folders of `places` and `missing`, then make what is missing (or has
        gone since the disk was looked at)."""
        folders = sorted({str(path.parent) for path in [*places, *missing]})
        try:
            for folder in folders:
                self._lock(folder)
            for path in [*missing, *places]:
                if not os.path.lexists(path):
                    self._make(path)
        except OSError as error:
            self.release([])
            raise PlaceholderError(f"{error.filename or 'a protected place'}: {error.strerror}")
        except BaseException:
            self.release([])
            raise

    def _lock(self, folder: str) -> None:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for _ in range(_LOCK_TRIES):
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    self._locks[folder] = fd
                    return
                except BlockingIOError:
                    time.sleep(_LOCK_PAUSE_S)
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        raise PlaceholderError(
            f"{folder} is locked by another command (agentcli or one it runs); "
            "try again once it has ended"
        )

    def _make(self, path: Path) -> None:
        try:
            os.mkdir(path, PLACEHOLDER_MODE)
        except FileExistsError:
            pass  # made meanwhile (by the person, or another command's placeholder)
        else:
            os.chmod(path, PLACEHOLDER_MODE)  # whatever the umask or the folder's ACL
            self.created.append(path)
        if os.path.islink(path):
            raise PlaceholderError(f"{path} became a link while the command was starting")

    def __del__(self) -> None:
        for fd in self._locks.values():  # a command that never finished: at least unlock
            os.close(fd)

    def release(self, stale: Sequence[Path]) -> None:
        """Unlock, then remove this command's placeholders and `stale` ones (left by a
        session that was killed) where no other command holds their folder."""
        for fd in self._locks.values():
            os.close(fd)  # closing the descriptor drops its lock
        self._locks.clear()
        by_folder: dict[str, list[tuple[Path, bool]]] = {}
        for path, ours in [*((p, True) for p in self.created), *((p, False) for p in stale)]:
            by_folder.setdefault(str(path.parent), []).append((path, ours))
        self.created = []
        for folder, paths in by_folder.items():
            _remove_when_alone(folder, paths)


def is_placeholder(path: Path) -> bool:
    """A folder of mode 1555: what `HeldPlaces` makes (or a killed session left)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == PLACEHOLDER_MODE


def _remove_when_alone(folder: str, paths: Sequence[tuple[Path, bool]]) -> None:
    """rmdir each placeholder (ours, or one that looks like one) unless another command
    holds `folder`: only ever an empty folder goes."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # another command runs with these: the last one to end removes them
        for path, ours in paths:
            if not ours and not is_placeholder(path):
                continue
            try:
                os.rmdir(path)
            except OSError as error:
                if error.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT):
                    raise
    finally:
        os.close(fd)


class PlaceholderError(Exception):
    """A protected place could not be held: the command must not start."""
