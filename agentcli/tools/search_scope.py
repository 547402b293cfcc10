"""Where a search runs, and which of the paths ripgrep reports may be shown.

rg reports paths relative to the folder it runs in (or absolute, outside the
project). To judge one against the permission rules we need it absolute, both
as reached and with symlinks resolved. rg never follows a symlink it meets on
its walk (we never pass `--follow`), only the folder or file it is given: so
the resolved path of anything it reports is the resolved search target plus
the rest of the path, and no file needs resolving on its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.tools.base import SearchFilter


@dataclass(slots=True)
class SearchScope:
    """One search: rg's working folder, its target (as written and resolved), the filter."""

    cwd: Path  # where rg runs; relative paths in its output start here
    target: Path  # the file or folder searched, absolute, symlinks kept
    search_filter: SearchFilter | None
    real_target: str = ""
    _cwd: str = ""
    _target: str = ""
    _seen: dict[bytes, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._cwd = str(self.cwd)
        self._target = str(self.target)
        self.real_target = os.path.realpath(self.target)

    def shows(self, raw: bytes) -> bool:
        """May a path rg printed (as bytes) be shown? Remembered per path."""
        if self.search_filter is None:
            return True
        known = self._seen.get(raw)
        if known is None:
            written, real = self.locate(os.fsdecode(raw))
            known = self._seen[raw] = not self.search_filter.hides(written, real)
        return known

    def shows_target(self) -> bool:
        """May the file or folder searched itself be shown (rg's notes about it)?"""
        return self.shows(os.fsencode(self._target))

    def locate(self, path: str) -> tuple[str, str]:
        """An rg output path, absolute: as reached, and with symlinks resolved."""
        if path.startswith("./"):
            path = path[2:]
        if not path.startswith("/"):
            path = self._cwd + path if self._cwd.endswith("/") else f"{self._cwd}/{path}"
        if path == self._target:
            return path, self.real_target
        if path.startswith(self._target.rstrip("/") + "/"):
            rest = path[len(self._target.rstrip("/")) :]
            return path, self.real_target.rstrip("/") + rest
        return path, os.path.realpath(path)  # not below the target: resolve it after all

    def note(self) -> str | None:
        """What the rules keep out of this search, said the same whatever it found."""
        return None if self.search_filter is None else self.search_filter.note(self.target)

    def rg_excludes(self) -> list[str]:
        return [] if self.search_filter is None else self.search_filter.rg_excludes(self.cwd)


def visible_errors(stderr: str, shows: Callable[[bytes], bool]) -> list[str]:
    """rg's error lines, without those naming a path that may not be shown."""
    kept = []
    for line in stderr.strip().splitlines():
        message = line.removeprefix("rg: ")
        paths = {message.partition(": ")[0], message.rpartition(": ")[0]} - {""}
        if all(shows(os.fsencode(path)) for path in paths):
            kept.append(line)
    return kept


def rg_error_note(stderr: str, shows: Callable[[bytes], bool]) -> str:
    """What a result says when rg could not search some files: its first visible error."""
    errors = visible_errors(stderr, shows)
    if not errors:
        return "\n\n(Some files could not be searched.)"
    return f"\n\n(Some files could not be searched: {errors[0]})"
