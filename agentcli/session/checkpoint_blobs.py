"""Content-addressed copies of files, shared by every session of a project.

A checkpoint keeps a file's bytes under the SHA-256 of its content, so the
same content recorded by ten prompts (or ten sessions) is stored once, and a
copy can never be silently wrong: its name is its checksum. Each blob is
written atomically (a private temp file, fsync, rename) and is private (0600,
in 0700 folders), like the transcript beside it: it holds the person's code.

A file over `MAX_STORED_BYTES` is recorded by hash only (its size and mode
too): keeping every version of a 200 MB data file would fill the disk. Such
a file can be "restored" only when it already holds that content again.

Storing an existing blob refreshes its modification time, which is what
pruning (checkpoint_prune.py) goes by, so a blob still in use is never
pruned under a running session.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.config.private_files import FILE_MODE, make_private_dir, write_atomic

MAX_STORED_BYTES = 10 * 1024 * 1024
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class FileState:
    """What a path held at one moment: nothing, or content with this hash and mode.

    `stored` says whether the content itself was kept (False for a file over
    MAX_STORED_BYTES). `new_folder`, for a file that did not exist: the highest
    of its folders (inside the project) that did not exist either, which a
    rewind deleting the file may remove again once empty.
    """

    exists: bool
    sha256: str | None = None
    size: int = 0
    mode: int = 0o644
    stored: bool = False
    new_folder: Path | None = None

    def to_json(self) -> dict[str, Any]:
        if not self.exists:
            if self.new_folder is None:
                return {"exists": False}
            return {"exists": False, "newFolder": str(self.new_folder)}
        return {
            "exists": True,
            "sha256": self.sha256,
            "size": self.size,
            "mode": self.mode,
            "stored": self.stored,
        }

    @classmethod
    def from_json(cls, data: object) -> FileState | None:
        if not isinstance(data, dict) or not isinstance(data.get("exists"), bool):
            return None
        if not data["exists"]:
            folder = data.get("newFolder")
            return cls(False, new_folder=Path(folder)) if isinstance(folder, str) else ABSENT
        sha, size, mode = data.get("sha256"), data.get("size"), data.get("mode")
        if not isinstance(sha, str) or not isinstance(size, int) or not isinstance(mode, int):
            return None
        return cls(True, sha, size, mode, bool(data.get("stored")))


ABSENT = FileState(exists=False)


def file_hash(path: Path) -> str | None:
    """The SHA-256 of the file's content; None when there is no regular file there."""
    try:
        with path.open("rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            digest = hashlib.sha256()
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    return digest.hexdigest()


class BlobStore:
    """The blobs of one project: `<folder>/<first two hex digits>/<sha256>`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path_of(self, sha256: str) -> Path:
        return self.folder / sha256[:2] / sha256

    def record(self, path: Path) -> FileState:
        """The state of `path` now, its content stored when it is small enough."""
        try:
            info = path.stat()
        except (FileNotFoundError, NotADirectoryError):
            return ABSENT
        if not stat.S_ISREG(info.st_mode):
            return ABSENT
        mode = stat.S_IMODE(info.st_mode)
        if info.st_size > MAX_STORED_BYTES:
            return FileState(True, file_hash(path), info.st_size, mode, stored=False)
        data = path.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        self._put(sha, data)
        return FileState(True, sha, len(data), mode, stored=True)

    def read(self, sha256: str) -> bytes | None:
        """A stored blob's bytes, or None when it is missing or no longer matches."""
        try:
            data = self.path_of(sha256).read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == sha256 else None

    def _put(self, sha256: str, data: bytes) -> None:
        target = self.path_of(sha256)
        if target.is_file():
            os.utime(target)  # in use again: not to be pruned
            return
        make_private_dir(target.parent)
        write_atomic(target, data, FILE_MODE)
