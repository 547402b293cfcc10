"""What one sandboxed command must not read or change, looked up on the disk as it starts.

A bind mount covers a path that exists, so rules written as names and globs
are turned into paths here, each time a command starts (a file made since the
last command is covered too):

- masked: what a `Read(...)` deny rule covers (any settings file, or
  `--disallowedTools`) and the always-protected `.env*` files of the writable
  folders (unless a `Read(...)` allow rule names that very file, as the rules
  let it through too); the command reads nothing there (a file, "Permission
  denied"; a folder, empty and read-only);
- protected: the agent configuration places (places.py) in each writable
  folder, and the same names found deeper (nested repositories' `.git`, a
  subfolder's `.claude` or `AGENTS.md`), and the folders `.git` files name;
  kept read-only;
- missing: those places, in a writable folder, that do not exist: held by
  an empty folder for the command's time (placeholders.py);
- pinned: the folders on the way from a writable folder down to a protected
  place, bound onto themselves so that they cannot be renamed (a command
  could otherwise move `vendor/` away and make a `vendor/dep/.git` of its own);
- links: symbolic links at protected names or on the way to one (a mount
  cannot hold a link itself): checked after the command, put back if changed;
- tree: each folder of the writable folders as the look found it, and the
  agent places below their tops, for the look after the command
  (aftercheck.py), which moves out the places the command made.

The look is bounded (`WALK_LIMIT` entries, `MASK_LIMIT` masks; bwrap takes
time for each mount). `.git` folders are not looked into. Beyond a bound,
and where a rule covers a whole writable folder (masking it would leave
nothing to work on), the survey records a gap: the command still runs,
confined, but the sandbox cannot stand in for the rules, so auto-allow is
off while a gap remains.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.config.path_rules import PathPattern, compile_path_pattern
from agentcli.config.rules import Rule
from agentcli.config.special_paths import secret_name
from agentcli.sandbox.aftercheck import FolderSeen, Tree, folder_id
from agentcli.sandbox.places import (
    AGENT_PLACES,
    GIT,
    common_dir,
    git_config_code_paths,
    git_links,
    git_pointer,
)

WALK_LIMIT = 100_000  # files and folders looked at for one command (about 0.1-0.4 s)
MASK_LIMIT = 200  # masks for one command: bwrap's set-up time grows with the square
PLACE_LIMIT = 300  # protected places and pinned folders: all kept, but it gets slow
_MAX_LINKS = 40  # as the kernel: a longer chain of links is a loop
_GLOB = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class KeptLink:
    """A symbolic link a command must not swap: where it is and what it says."""

    path: Path
    target: str


@dataclass
class Survey:
    """The paths one command's mounts are built from (absolute, without links)."""

    masked: list[Path] = field(default_factory=list)
    protected: list[Path] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)
    pinned: list[Path] = field(default_factory=list)
    links: list[KeptLink] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    tree: Tree = field(default_factory=lambda: Tree(roots=(), started_ns=0))


@dataclass(frozen=True, slots=True)
class DenyPattern:
    """A Read deny rule as a path pattern, with the rule's text for messages."""

    rule: str
    pattern: PathPattern


def read_deny_patterns(rules: Sequence[Rule], base: Path) -> list[DenyPattern]:
    """The `Read(path)` deny rules, compiled as the policy compiles them (`base`: the
    project root, for rules that came without one)."""
    return [
        DenyPattern(str(rule), compile_path_pattern(str(rule.specifier), rule.base or base))
        for rule in read_rules(rules)
    ]


def read_rules(rules: Sequence[Rule]) -> list[Rule]:
    """The `Read(path)` rules among `rules`: the ones that speak about files."""
    return [rule for rule in rules if rule.tool == "Read" and rule.specifier is not None]


def exact_read_allows(rules: Sequence[Rule], base: Path) -> list[PathPattern]:
    """The `Read(path)` allow rules that name one file (no wildcard): the only ones that
    let an always-protected file through (config/special_paths.py)."""
    patterns = [compile_path_pattern(str(r.specifier), r.base or base) for r in read_rules(rules)]
    return [pattern for pattern in patterns if pattern.literal]


def survey(
    roots: Sequence[Path],
    denied: Sequence[DenyPattern],
    hidden: Sequence[Path],
    allowed: Sequence[PathPattern] = (),
) -> Survey:
    """Look at the disk for one command: `roots` are the writable folders (resolved),
    `hidden` what is hidden anyway (credential folders, AGENTCLI_HOME), `allowed` the
    allow rules that name an always-protected file exactly."""
    surveyor = _Surveyor([str(root) for root in roots], denied, {str(p) for p in hidden})
    surveyor.allowed = list(allowed)
    surveyor.run()
    return surveyor.result()


class _Budget(Exception):
    """The walk limit is reached: stop looking."""


class _Surveyor:
    def __init__(self, roots: list[str], denied: Sequence[DenyPattern], hidden: set[str]) -> None:
        self.roots = roots
        self.root_set = set(roots)
        self.denied = list(denied)
        self.hidden = hidden
        self.left = WALK_LIMIT
        self.masked: dict[str, None] = {}
        self.protected: dict[str, None] = {}
        self.missing: dict[str, None] = {}
        self.pinned: dict[str, None] = {}
        self.links: dict[str, KeptLink] = {}
        self.gaps: list[str] = []
        self.masks_cut = False
        self.allowed: list[PathPattern] = []
        self.tree = Tree(roots=tuple(roots), started_ns=time.time_ns())

    def run(self) -> None:
        try:
            for root in self.roots:
                for name in AGENT_PLACES:
                    self._protect(os.path.join(root, name))
            for root in self.roots:
                self._walk_root(root)
            for deny in self.denied:
                self._walk_rule(deny)
        except _Budget:
            self.gaps.append(
                f"there are more than {WALK_LIMIT:,} files and folders to look through"
            )

    # --- the writable folders -------------------------------------------------------

    def _walk_root(self, root: str) -> None:
        """Every entry of a writable folder: secrets, Read-denied paths, nested places;
        and, for the look after the command (aftercheck.py), each folder as it was."""
        active: list[_Matcher] = []
        for deny in self.denied:
            if deny.pattern.matches(Path(root)):
                self.gaps.append(f"the rule {deny.rule} covers all of {root}")
            else:
                active.append(_Matcher(deny.pattern))
        try:
            stack = [(root, os.lstat(root))]
        except OSError:
            return
        while stack:
            folder, info = stack.pop()
            try:
                entries = self._entries(folder)
            except _Budget:
                self.tree.unlisted.update(folder_id(i) for _, i in [(folder, info), *stack])
                raise
            subfolders: list[str] = []
            for entry in entries:
                path = entry.path
                if path in self.hidden or path in self.root_set:
                    continue  # hidden anyway; another writable folder, looked at on its own
                name = entry.name
                link = entry.is_symlink()
                folder_entry = not link and entry.is_dir(follow_symlinks=False)
                if name in AGENT_PLACES and folder != root:
                    self._protect(path)
                    self.tree.places.add(path)
                secret = not link and not folder_entry and secret_name(name)
                secret = secret and not any(p.names_exactly(Path(path)) for p in self.allowed)
                masked = secret or (not link and any(match(path) for match in active))
                if masked:
                    self._mask(path)
                if not folder_entry or name == GIT:
                    continue
                try:
                    seen = entry.stat(follow_symlinks=False)  # before it is listed
                except OSError:
                    continue
                if masked:
                    self.tree.unlisted.add(folder_id(seen))
                else:
                    stack.append((path, seen))
                    subfolders.append(name)
            self.tree.folders[folder_id(info)] = FolderSeen(info.st_ctime_ns, tuple(subfolders))

    # --- Read deny rules outside the writable folders ------------------------------------

    def _walk_rule(self, deny: DenyPattern) -> None:
        """What one rule covers outside the writable folders, from the folder its literal
        part names (`~/vault/**` looks only in ~/vault)."""
        pattern = deny.pattern
        spelled = _literal_base(pattern)
        real = _realpath(spelled)
        if real is None or self._inside_root(real) or self._under(real, self.hidden):
            return  # looked at with the writable folder; or hidden anyway
        if not os.path.lexists(real):
            return
        if pattern.matches(Path(spelled)):
            self._mask(real)  # a folder that holds a writable one: that one shows through
            return
        if not os.path.isdir(real) or os.path.islink(real):
            return
        stack = [(real, spelled)]
        while stack:
            folder, folder_spelled = stack.pop()
            for entry in self._entries(folder):
                path = entry.path
                if path in self.root_set or path in self.hidden or entry.is_symlink():
                    continue  # looked at on its own; hidden; judged where it leads
                spelled_path = os.path.join(folder_spelled, entry.name)
                if pattern.matches(Path(spelled_path)):
                    self._mask(path)
                elif entry.is_dir(follow_symlinks=False) and entry.name != GIT:
                    stack.append((path, spelled_path))

    # --- protected places -----------------------------------------------------------------

    def _protect(self, path: str) -> None:
        """Keep `path` as it is: read-only if it exists, held if it does not, and every
        link on the way kept. Git folders lead on to where git finds more code."""
        real = self._follow(path)
        if real is None or not self._inside_root(real) or self._under(real, self.hidden):
            return  # a loop of links (kept, put back if changed); or not writable anyway
        if real in self.root_set:
            return  # a writable folder itself cannot be swapped (and stays writable)
        try:
            mode = os.lstat(real).st_mode
        except FileNotFoundError:
            self._hold(real)
            return
        except OSError:
            return
        if real in self.protected:
            return
        self.protected[real] = None
        self._pin_above(real)
        if os.path.basename(path) != GIT:
            return
        worktree = _realpath(os.path.dirname(path)) or os.path.dirname(real)
        if stat.S_ISDIR(mode):
            self._protect_git_folder(real, worktree)
        elif stat.S_ISREG(mode):
            gitdir = git_pointer(real)
            real_gitdir = self._follow(gitdir) if gitdir is not None else None
            if gitdir is None or real_gitdir is None:
                return
            self._protect(gitdir)
            self._protect_git_folder(real_gitdir, worktree)
            common = common_dir(real_gitdir)
            real_common = self._follow(common) if common is not None else None
            if common is not None and real_common is not None:
                self._protect(common)
                self._protect_git_folder(real_common, worktree)

    def _protect_git_folder(self, gitdir: str, worktree: str) -> None:
        """What a repository's config includes, its hooksPath, and links in it."""
        for path in [*git_config_code_paths(gitdir, worktree), *git_links(gitdir)]:
            self._protect(path)

    def _hold(self, path: str) -> None:
        """A missing protected path: hold its first missing folder inside a writable one."""
        first = path
        while not os.path.lexists(os.path.dirname(first)):
            first = os.path.dirname(first)
        if self._inside_root(first) and first not in self.root_set:
            self.missing[first] = None
            self._pin_above(first)

    def _pin_above(self, path: str) -> None:
        root = self._root_of(path)
        if root is None:
            return
        folder = os.path.dirname(path)
        while folder != root and len(folder) > len(root):
            self.pinned[folder] = None
            folder = os.path.dirname(folder)

    def _follow(self, path: str) -> str | None:
        """`path` with every link resolved (None for a loop), noting each link that lies
        in a writable folder: a command could swap it, so it is kept."""
        parts = deque(Path(path).parts[1:])
        current = "/"
        hops = 0
        while parts:
            part = parts.popleft()
            if part in ("", "."):
                continue
            if part == "..":
                current = os.path.dirname(current)
                continue
            candidate = os.path.join(current, part)
            try:
                mode = os.lstat(candidate).st_mode
            except OSError:
                return os.path.join(candidate, *parts)  # missing from here on
            if not stat.S_ISLNK(mode):
                current = candidate
                continue
            hops += 1
            try:
                target = os.readlink(candidate)
            except OSError:
                return None
            if self._inside_root(candidate) and candidate not in self.links:
                self.links[candidate] = KeptLink(Path(candidate), target)
                self._pin_above(candidate)
            if hops > _MAX_LINKS:
                return None
            if os.path.isabs(target):
                current = "/"
            parts.extendleft(reversed(Path(target).parts[1 if os.path.isabs(target) else 0 :]))
        return current

    # --- helpers --------------------------------------------------------------------------

    def _entries(self, folder: str) -> list[os.DirEntry[str]]:
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            return []  # a folder agentcli cannot list, a sandboxed command cannot either
        self.left -= len(entries)
        if self.left < 0:
            raise _Budget
        return entries

    def _mask(self, path: str) -> None:
        if path in self.masked:
            return
        if len(self.masked) >= MASK_LIMIT:
            if not self.masks_cut:
                self.gaps.append(f"the rules cover more than {MASK_LIMIT} files and folders")
                self.masks_cut = True
            return
        self.masked[path] = None

    def _root_of(self, path: str) -> str | None:
        found = [root for root in self.roots if _under_one(path, root)]
        return max(found, key=len) if found else None

    def _inside_root(self, path: str) -> bool:
        return self._root_of(path) is not None

    def _contains_root(self, path: str) -> bool:
        return any(_under_one(root, path) for root in self.roots)

    @staticmethod
    def _under(path: str, folders: set[str]) -> bool:
        return any(_under_one(path, folder) for folder in folders)

    def result(self) -> Survey:
        masked = _outermost(self.masked, self.roots)
        # Inside a masked folder (one that holds no writable folder) nothing else is needed.
        covered = [p for p in masked if os.path.isdir(p) and not self._contains_root(p)]
        protected = _outermost([p for p in self.protected if not _under_any(p, covered)], [])
        done = [*covered, *protected]
        held = [p for p in self.missing if not _under_any(p, done)]
        pinned = [p for p in self.pinned if not _under_any(p, done) and p not in self.missing]
        if len(protected) + len(held) + len(pinned) > PLACE_LIMIT:
            self.gaps.append(
                f"more than {PLACE_LIMIT} protected places (nested repositories and the "
                "folders above them), which makes each command slow to start"
            )
        self.tree.skip = frozenset([*masked, *self.hidden])
        return Survey(
            masked=[Path(p) for p in masked],
            protected=[Path(p) for p in protected],
            missing=[Path(p) for p in held],
            pinned=[Path(p) for p in sorted(pinned)],
            links=list(self.links.values()),
            gaps=self.gaps,
            tree=self.tree,
        )


class _Matcher:
    """`PathPattern.matches` on path text: the walk asks it for every entry."""

    def __init__(self, pattern: PathPattern) -> None:
        self._anchor = str(pattern.anchor)
        self._prefix = self._anchor.rstrip("/") + "/"
        self._regex = pattern.regex

    def __call__(self, path: str) -> bool:
        if path == self._anchor:
            return self._regex.fullmatch("") is not None
        if not path.startswith(self._prefix):
            return False
        return self._regex.fullmatch(path[len(self._prefix) :]) is not None


def _literal_base(pattern: PathPattern) -> str:
    """The folder (or file) a pattern's leading literal segments name under its anchor."""
    anchor = str(pattern.anchor)
    if not pattern.anchored or not pattern.text:
        return anchor
    literal: list[str] = []
    for segment in pattern.text.split("/"):
        if _GLOB.search(segment):
            break
        literal.append(segment)
    return os.path.join(anchor, *literal)


def _realpath(path: str) -> str | None:
    try:
        return os.path.realpath(path, strict=False)
    except (OSError, ValueError):
        return None


def _under_one(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _under_any(path: str, folders: Sequence[str]) -> bool:
    return any(_under_one(path, folder) for folder in folders)


def _outermost(paths: Iterable[str], roots: Sequence[str]) -> list[str]:
    """Sorted, without those another one already covers: one inside a kept path, unless
    a writable folder lies between (it shows through the outer mount, so the inner
    path needs its own)."""
    kept: list[str] = []
    for path in sorted(paths):
        outer = [k for k in kept if _under_one(path, k)]
        if not any(
            not any(_under_one(root, k) and _under_one(path, root) for root in roots) for k in outer
        ):
            kept.append(path)
    return kept
