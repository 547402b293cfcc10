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
from pathlib import Path

from agentcli.tools.base import SearchFilter


class SearchScope:
    """One search: rg's working folder, its target (as written and resolved), the filter."""

    def __init__(self, cwd: Path, target: Path, search_filter: SearchFilter | None) -> None:
        self.cwd = cwd  # where rg runs; relative paths in its output start here
        self.target = target  # the file or folder searched, absolute, symlinks kept
        self.search_filter = search_filter
        self.real_target = os.path.realpath(target)
        self._cwd = str(cwd).rstrip("/") + "/"
        self._target = str(target)
        self._below = self._target.rstrip("/") + "/"
        self._real_below = self.real_target.rstrip("/") + "/"
        self._unmoved = self._below == self._real_below
        self._hides = search_filter.hider(self._target, self.real_target) if search_filter else None
        self._anywhere: Callable[[str, str], bool] | None = None
        self._seen: dict[bytes, bool] = {}

    def shows(self, raw: bytes) -> bool:
        """May a path rg printed (as bytes, relative to `cwd` or absolute) be shown?"""
        hides = self._hides
        if hides is None:
            return True
        path = raw.decode("utf-8", "surrogateescape")  # os.fsdecode, without its overhead
        if path.startswith("./"):
            path = path[2:]
        if not path.startswith("/"):
            path = self._cwd + path
        below = self._below
        if path.startswith(below):  # the usual case, kept short: this runs per file
            if self._unmoved:  # no symlink on the way to the target
                return not hides(path, path)
            return not hides(path, self._real_below + path[len(below) :])
        if path == self._target:
            return not hides(path, self.real_target)
        return not self._hides_anywhere(path, os.path.realpath(path))

    def _hides_anywhere(self, written: str, real: str) -> bool:
        """For a path not below the target (rg reports none; an error message may name
        one): judged by every rule, wherever it lies."""
        assert self.search_filter is not None
        if self._anywhere is None:
            self._anywhere = self.search_filter.hider("/", "/") or (lambda _w, _r: False)
        return self._anywhere(written, real)

    def shows_again(self, raw: bytes) -> bool:
        """`shows`, remembered per path: for content lines, many to a file."""
        known = self._seen.get(raw)
        if known is None:
            known = self._seen[raw] = self.shows(raw)
        return known

    def shows_file_target(self) -> bool:
        """Is the search target a file that may be shown (rg's notes about a file it
        was given: "binary file matches")?"""
        return os.path.isfile(self._target) and self.shows(os.fsencode(self._target))

    def note(self) -> str | None:
        """What the rules keep out of this search, said the same whatever it found."""
        if self.search_filter is None:
            return None
        return self.search_filter.note(self._target, self.real_target)

    def rg_excludes(self) -> list[str]:
        if self.search_filter is None:
            return []
        return self.search_filter.rg_excludes(str(self.cwd), self._target, self.real_target)


def visible_errors(stderr: str, shows: Callable[[bytes], bool]) -> list[str]:
    """rg's error lines, without those naming a path that may not be shown."""
    kept = []
    for line in stderr.strip().splitlines():
        message = line.removeprefix("rg: ")
        paths = {message.partition(": ")[0], message.rpartition(": ")[0]} - {""}
        if all(shows(os.fsencode(path)) for path in paths):
            kept.append(line)
    return kept


def rg_error_note(errors: list[str]) -> str:
    """What a result says when rg could not search some files: its first visible error."""
    if not errors:
        return "\n\n(Some files could not be searched.)"
    return f"\n\n(Some files could not be searched: {errors[0]})"
