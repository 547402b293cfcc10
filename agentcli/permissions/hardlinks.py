"""Hard links: one file, several names. A protected file's other name is that file.

`ln .git/config hl_cfg` makes `hl_cfg` the very file git reads its config
from: writing it is writing `.git/config`, whatever the rules say about the
name `hl_cfg`. So before a file with more than one link is judged, its other
names are looked for (same device and inode), and each is judged as well.

Where to look without walking the whole disk on every call: the places the
rules protect that can be listed cheaply. The project and added folders
(with their `.git`, but not git's object store), `~/.ssh`, the shell start-up
files in the home folder, agentcli's settings and trust files, and the
folder each deny or ask rule for files points into (`Read(./private/**)`:
`private/`). The scan is bounded; it only happens when a multi-link file
is met, and once per decision.

When a file's other names are not all found, they are elsewhere:
- for a write, the missing name could be any `.git/config` or `.bashrc` on
  the disk: the caller asks;
- for a read, the places where reading is protected were all scanned
  (unless the scan was cut short, which asks), so a missing name is not a
  file a Read deny rule covers. (A `.env` outside every scanned place is not
  seen: see docs/permissions.md.)
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.config.special_paths import SHELL_STARTUP_FILES, settings_paths, ssh_folder

MAX_SCAN_ENTRIES = 50_000


@dataclass(frozen=True, slots=True)
class OtherNames:
    names: tuple[str, ...]  # other names of the same file, in the scanned places
    complete: bool  # every other name was found
    scan_complete: bool  # the scan of the protected places was not cut short

    def unknown_reason(self, path: str, *, writing: bool) -> str | None:
        """Why the names not found must be asked about, or None."""
        if writing and not self.complete:
            return (
                f"{path} has other names (hard links) agentcli cannot all see; writing it "
                "writes them too"
            )
        if not self.scan_complete and not self.complete:
            return f"{path} has other names (hard links) agentcli could not check"
        return None


@dataclass
class LinkScanner:
    """The other names of multi-link files, from one bounded scan of the protected places."""

    roots: tuple[Path, ...]  # the project and added folders
    rule_roots: tuple[Path, ...] = ()  # where the file rules' matches lie
    _index: dict[tuple[int, int], list[str]] | None = field(default=None, repr=False)
    _complete: bool = True

    def places(self) -> tuple[list[str], list[str]]:
        """(folders walked, files looked at one by one)."""
        home = Path.home()
        files = [str(home / name) for name in sorted(SHELL_STARTUP_FILES)]
        if self.roots:
            files += [str(p) for p in settings_paths(self.roots[0])]
        folders = [os.path.realpath(f) for f in (*self.roots, ssh_folder(), *self.rule_roots)]
        return list(dict.fromkeys(folders)), files

    def other_names(self, path: str) -> OtherNames | None:
        """None when `path` is not a regular file with more than one link."""
        try:
            info = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
            return None
        index = self._scan()
        real = os.path.realpath(path)
        found = [
            name
            for name in index.get((info.st_dev, info.st_ino), [])
            if os.path.realpath(name) != real
        ]
        names = tuple(dict.fromkeys(found))
        return OtherNames(names, len(names) >= info.st_nlink - 1, self._complete)

    def _scan(self) -> dict[tuple[int, int], list[str]]:
        if self._index is not None:
            return self._index
        index: dict[tuple[int, int], list[str]] = {}
        budget = [MAX_SCAN_ENTRIES]
        folders, files = self.places()
        for file in files:
            _note(file, index)
        for folder in folders:
            if not self._walk(folder, index, budget):
                self._complete = False
                break
        self._index = index
        return index

    def _walk(self, top: str, index: dict[tuple[int, int], list[str]], budget: list[int]) -> bool:
        """Notes every multi-link file under `top`; False when the budget ran out."""
        stack = [top]
        while stack:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                budget[0] -= 1
                if budget[0] < 0:
                    return False
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if not _object_store(entry.path):
                            stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        info = entry.stat(follow_symlinks=False)
                        if info.st_nlink > 1:
                            index.setdefault((info.st_dev, info.st_ino), []).append(entry.path)
                except OSError:
                    continue
        return True


def _note(path: str, index: dict[tuple[int, int], list[str]]) -> None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        index.setdefault((info.st_dev, info.st_ino), []).append(path)


def _object_store(path: str) -> bool:
    """git's objects: content-addressed, never edited in place, and many."""
    parent, name = os.path.split(path)
    return name == "objects" and "/.git/" in parent + "/"


def link_scanner(roots: Iterable[Path], rule_roots: Iterable[Path]) -> LinkScanner:
    """The scanner for a session: its folders, and the folders its file rules point into.
    Cheap to make: the places are resolved when a multi-link file is first met."""
    return LinkScanner(tuple(roots), tuple(rule_roots))
