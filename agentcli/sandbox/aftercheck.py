"""The agent places a sandboxed command made below the top of a writable folder, moved out.

At the top of each writable folder the protected names are held (mounted
read-only, or by a placeholder when missing), so a command cannot make one
there. Deeper, a mount can only cover what exists: `mkdir -p sub/.claude`,
`git init sub`, `git clone`, `tar x` and the like make new ones, and agentcli,
Claude Code or git started in that folder later would run what they hold
(a folder inside a trusted one is trusted). So the look before the command
(survey.py) keeps a `Tree`: each folder it listed, by identity (device and
inode) with its change time (ctime) and subfolders, and the places it found.
After the command, `new_places` compares, and `move_out` renames what is
new out of the project (aside.py: never deleted) and says so in the result.

One comparison, cheap: a folder whose ctime is what it was has the same
entries (adding, removing or renaming an entry changes it, and no program
can set a ctime back: `touch -d` sets the other times and moves ctime on),
so it is not listed again, only its subfolders are looked at. A folder that
changed is listed and its new entries judged; a folder that is new (or that
is another one under an old name) is looked through whole. Times are only
trusted for folders that had not changed for `SETTLE_NS` before the look
started: a disk keeps times in steps (a clock tick, a second, two), and a
change in the same step as the look would leave the time as it was.

Not judged: folders the look before did not list (it stopped at its bound:
the survey's gap says so), what lies under a masked or hidden path or a
protected place (read-only for the command), `.git` folders' insides. Commands
of one session that run at the same time share their trees through the
Sandbox (a place one made is not another's "before"): see bubblewrap.py.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.sandbox.aside import move_aside, open_folder, owner_may
from agentcli.sandbox.placeholders import is_placeholder
from agentcli.sandbox.places import AGENT_PLACES

SETTLE_NS = 5_000_000_000  # a folder changed in the 5 s before the look is listed again

FolderId = tuple[int, int]  # (st_dev, st_ino)


@dataclass(frozen=True, slots=True)
class FolderSeen:
    """A folder as the look before the command listed it."""

    ctime_ns: int
    subfolders: tuple[str, ...]  # the ones the look went into


@dataclass
class Tree:
    """What the look before one command found in the writable folders."""

    roots: tuple[str, ...]
    started_ns: int
    folders: dict[FolderId, FolderSeen] = field(default_factory=dict)
    unlisted: set[FolderId] = field(default_factory=set)  # seen, not looked into
    places: set[str] = field(default_factory=set)  # agent places below the top
    skip: frozenset[str] = frozenset()  # masked or hidden: the command cannot write there


@dataclass
class Found:
    """The places a command made, and whether everything it made was looked through."""

    new: list[str] = field(default_factory=list)
    complete: bool = True
    unreadable: list[str] = field(default_factory=list)  # folders it could not look into


def folder_id(info: os.stat_result) -> FolderId:
    return (info.st_dev, info.st_ino)


def new_places(tree: Tree, limit: int) -> Found:
    """The agent places below the top of the writable folders that were not there when
    `tree` was looked at; at most `limit` entries are listed to find them."""
    return _Check(tree, limit).run()


class _Check:
    def __init__(self, tree: Tree, limit: int) -> None:
        self.tree = tree
        self.left = limit
        self.settled_before = tree.started_ns - SETTLE_NS
        self.root_set = set(tree.roots)
        self.found = Found()

    def run(self) -> Found:
        for root in self.tree.roots:
            try:
                info = os.lstat(root)
            except OSError:
                continue
            if folder_id(info) not in self.tree.folders:
                continue  # the look before never got here (its gap says so)
            if not self._walk(root, info):
                self.found.complete = False
                break
        return self.found

    def _walk(self, root: str, info: os.stat_result) -> bool:
        """Judge one writable folder; False when the bound was reached."""
        stack = [(root, info)]
        while stack:
            folder, info = stack.pop()
            key = folder_id(info)
            if key in self.tree.unlisted:
                continue
            seen = self.tree.folders.get(key)
            if seen is not None and self._unchanged(seen, info):
                stack.extend(self._subfolders(folder, seen))
                continue
            entries = self._list(root, folder, info)
            if entries is None:
                continue
            self.left -= len(entries)
            if self.left < 0:
                return False
            for name, folder_info in entries:
                self._judge(folder, name, folder_info, stack)
        return True

    def _list(self, root: str, folder: str, info: os.stat_result) -> list[_Entry] | None:
        """The folder's entries. One the command made unreadable (`chmod 300`: a place
        can still be made in it and reached) is made readable to its owner for the look."""
        try:
            with os.scandir(folder) as listing:
                return [_entry(item) for item in listing]
        except PermissionError:
            pass
        except OSError:
            return None  # gone meanwhile
        try:
            handle = open_folder(root, Path(os.path.relpath(folder, root)).parts)
        except OSError:
            return None  # replaced meanwhile (by a command still running): judged where it is
        try:
            if folder_id(os.fstat(handle)) != folder_id(info):
                return None
            with owner_may(handle, stat.S_IRUSR | stat.S_IXUSR):
                fd = os.open(f"/proc/self/fd/{handle}", os.O_RDONLY | os.O_DIRECTORY)
                try:
                    with os.scandir(fd) as listing:
                        return [_entry(item) for item in listing]
                finally:
                    os.close(fd)
        except OSError:
            self.found.unreadable.append(folder)
            return None
        finally:
            os.close(handle)

    def _unchanged(self, seen: FolderSeen, info: os.stat_result) -> bool:
        return info.st_ctime_ns == seen.ctime_ns and seen.ctime_ns < self.settled_before

    def _subfolders(self, folder: str, seen: FolderSeen) -> list[tuple[str, os.stat_result]]:
        found: list[tuple[str, os.stat_result]] = []
        for name in seen.subfolders:
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                found.append((path, info))
        return found

    def _judge(
        self,
        folder: str,
        name: str,
        folder_info: os.stat_result | None,
        stack: list[tuple[str, os.stat_result]],
    ) -> None:
        path = os.path.join(folder, name)
        if path in self.tree.skip or path in self.root_set:
            return  # masked or hidden; another writable folder, judged on its own
        if name in AGENT_PLACES:
            if folder in self.root_set or path in self.tree.places:
                return  # held at the top; or there before, and read-only since
            if not _empty_placeholder(path):
                self.found.new.append(path)
            return
        if folder_info is not None:
            stack.append((path, folder_info))


_Entry = tuple[str, os.stat_result | None]  # a name, and its stat when it is a folder


def _entry(item: os.DirEntry[str]) -> _Entry:
    """Looked at while its listing is open (a listing by descriptor needs that)."""
    try:
        if item.is_dir(follow_symlinks=False):
            return item.name, item.stat(follow_symlinks=False)
    except OSError:
        pass
    return item.name, None


def _empty_placeholder(path: str) -> bool:
    """An empty folder of mode 1555: another running command's placeholder (or one a
    killed session left), not something a command could have filled."""
    if not is_placeholder(Path(path)):
        return False
    try:
        return not os.listdir(path)
    except OSError:
        return False


def move_out(found: Found, roots: tuple[str, ...], folder: Path) -> list[str]:
    """Move each place `found` names to `folder` (under its path in the project), and say
    what went where, and why, for the model and the person."""
    moved: list[str] = []
    failed: list[str] = []
    for path in found.new:
        root = max((r for r in roots if _under(path, r)), key=len, default=None)
        if root is None:
            continue
        shown, below = _names(path, root, roots[0])
        try:
            where = move_aside(root, path, folder / below)
        except OSError as error:
            failed.append(f"{printable(shown)} ({error.strerror or error})")
            continue
        kept = "" if where == folder / shown else f" (kept as {printable(str(where))})"
        moved.append(printable(shown) + kept)
    notes: list[str] = []
    if moved:
        listed = ", ".join(moved[:_LISTED])
        more = f", and {len(moved) - _LISTED} more" if len(moved) > _LISTED else ""
        notes.append(
            "(The sandbox moved what this command created at agent configuration places "
            f"out of the project, to {folder} (same paths below it): {listed}{more}. "
            "agentcli, Claude Code or git started in those folders would have run or "
            "believed what they hold (settings, hooks, commands, MCP servers, instructions, "
            "a repository's hooks and config). A sandboxed command cannot make these; "
            "look at what was moved before you move any of it back.)"
        )
    if failed:
        notes.append(
            f"(This command created {', '.join(failed)}, and the sandbox could not move it "
            "out of the way. agentcli, Claude Code or git started in that folder would run "
            "or believe what it holds: move or delete it yourself before you start one "
            "there.)"
        )
    if found.unreadable:
        unreadable = ", ".join(map(printable, found.unreadable))
        notes.append(
            f"(The sandbox could not look into {unreadable}, which this command changed: "
            "a .agentcli, .claude, .mcp.json, AGENTS.md, CLAUDE.md or .git it made there "
            "may remain. Look before you start agentcli, Claude Code or git "
            "there.)"
        )
    if not found.complete:
        notes.append(
            "(The sandbox could not look through everything the command made (more files "
            "and folders than it looks at for one command), so new .agentcli, .claude, "
            ".mcp.json, AGENTS.md, CLAUDE.md or .git it made in subfolders may remain: look "
            "before you start agentcli, Claude Code or git in a folder the command wrote. "
            "Bash calls are asked about until that changes.)"
        )
    return notes


_LISTED = 20


def printable(path: str) -> str:
    """A path a command chose, shown on one line: control characters and bytes that are
    not UTF-8 (a line break could make it look like a note of agentcli's) escaped."""
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode()
        for c in path
    )


def _names(path: str, root: str, project: str) -> tuple[str, Path]:
    """How `path` is shown (relative to the project when inside it), and where below the
    folder it is kept (an added folder's places under that folder's name)."""
    if _under(path, project):
        rel = os.path.relpath(path, project)
        return rel, Path(rel)
    return path, Path(os.path.basename(root), os.path.relpath(path, root))


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
