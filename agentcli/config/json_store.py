"""Read and atomically update JSON object files (settings, remembered choices).

Settings files are written by people as well as by agentcli, so an update must
never lose what is already there: we read the whole object, let the caller
change it, and write it back through a temp file in the same folder (fsync,
then os.replace), so a crash leaves either the old or the new file, never half
of one. A file that is not a JSON object is refused rather than overwritten.
A byte order mark, which some Windows editors put at the start of UTF-8
files, is accepted (and not written back).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli.config.private_files import FILE_MODE, write_atomic, write_private_atomic


class JsonStoreError(Exception):
    """A JSON file exists but cannot be used (unreadable, not JSON, not an object).

    `reason` says why without the file's name (for lists that already show it).
    """

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = Path(path)
        self.reason = reason


def read_json_object(path: Path | str) -> dict[str, Any]:
    """The object stored in `path`, or {} if the file does not exist.

    Raises JsonStoreError naming the file (and line/column for bad JSON) when
    it exists but is unreadable or is not a JSON object.
    """
    text = read_json_text(path)
    return {} if text is None else parse_json_object(text, path)


def read_json_text(path: Path | str) -> str | None:
    """The text of `path` (a UTF-8 byte order mark dropped), or None if there is no file."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise JsonStoreError(p, f"cannot read: not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise JsonStoreError(p, f"cannot read: {exc.strerror or exc}") from exc


def parse_json_object(text: str, path: Path | str) -> dict[str, Any]:
    """The object `text` (read from `path`) holds; {} for a blank file."""
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        reason = f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        raise JsonStoreError(path, reason) from exc
    if not isinstance(data, dict):
        raise JsonStoreError(path, f"expected a JSON object, found {type(data).__name__}")
    return data


def write_json_atomic(path: Path | str, data: Any, *, private: bool = False) -> None:
    """Write `data` as pretty JSON to `path` atomically, creating its folder.

    `private`: a file of agentcli's own under AGENTCLI_HOME, 0600 in a 0700
    folder (private_files.py); otherwise an existing file keeps its mode.
    """
    p = Path(path)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if private:
        write_private_atomic(p, text)
        return
    p.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(p, text.encode("utf-8"), _mode_to_keep(p))


def _mode_to_keep(path: Path) -> int:
    """The permissions `path` has now (a project's settings shared at 0644 stay so);
    0600, a fresh temp file's, when there is no file to take them from."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return FILE_MODE


def update_json_object(
    path: Path | str, mutate: Callable[[dict[str, Any]], None], *, private: bool = False
) -> dict[str, Any]:
    """Apply `mutate` to the object in `path` and write it back atomically.

    Keys the caller does not touch are kept as they were. A missing file (and
    folder) is created. A broken file raises JsonStoreError and is left
    untouched, since rewriting it would lose what the person wrote.
    `private`: as for write_json_atomic. Returns the object as written.
    """
    data = read_json_object(path)
    mutate(data)
    write_json_atomic(path, data, private=private)
    return data
