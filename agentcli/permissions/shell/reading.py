"""What a read-only command reads, judged where it lands.

paths.py says which words of a command name what it reads; here each is
checked from the folders the command runs in (places.py): outside the
project asks (unless a rule allows the command), always-asked places and
recursive reads over folders with protected files ask, and a file a Read
deny rule covers refuses the whole line (`denied_read`), also through a `<`
redirect of any command. A git command that prints committed files without
naming them asks where a Read deny rule may cover some (`history_problem`),
whatever allows the command.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from agentcli.permissions.shell.gitreads import GitCall, git_call, history_reach
from agentcli.permissions.shell.model import Command, Walk
from agentcli.permissions.shell.paths import Reads, reads_of
from agentcli.permissions.shell.places import Places
from agentcli.permissions.shell.readonly_commands import is_read_only_argv
from agentcli.permissions.shell.text import short

NO_PATHS = frozenset(
    {"echo", "printf", "tr", "true", "false", ":", "pwd", "whoami", "uname", "[[", "((", "test"}
    | {"set"}
)
MOVES = frozenset({"cd", "pushd"})


def known_args(command: Command) -> list[str]:
    return [a for a in command.argv if a is not None]


def names_no_files(command: Command) -> bool:
    known = known_args(command)
    return bool(known) and known[0] in NO_PATHS


def reads(command: Command) -> Reads:
    if command.name in MOVES:
        return Reads(files=[str(folder) for folder in command.lands or ()])
    return reads_of(known_args(command))


def read_problem(
    places: Places, command: Command, *, rule_allowed: bool, content: bool = False
) -> str | None:
    """Why what this read-only command reads must be asked about, or None.

    `rule_allowed`: a rule allows the command, so reading outside the project
    is fine (protected places are not). `content`: it reads the contents of
    every file under its folders (find -exec).
    """
    unknown = any(a is None for a in command.argv) and not command.via.startswith("find")
    if unknown and not names_no_files(command):
        return f"`{short(command.text)}` names files that are not known before it runs"
    if command.name in MOVES:
        return _move_problem(places, command)
    found = reads(command)
    risky = next((p for p in found.patterns if _may_match_protected(p, places)), None)
    if risky is not None:
        return f"`{short(command.text)}`: the pattern {risky} may match protected files"
    hidden = found.hidden or content
    for value in found.files + found.maybe:
        if value not in found.files and not places.looks_like_path(value, command.cwds):
            continue
        tree = value in found.tree
        finding = places.read(value, command.cwds, tree=tree, hidden=hidden)
        if finding is not None and not (rule_allowed and finding[0] == "outside"):
            return f"`{short(command.text)}`: {finding[1]}"
    for value in found.repo:
        finding = places.read(value, repo_cwds(command, value), tree=False, hidden=False)
        if finding is not None and not (rule_allowed and finding[0] == "outside"):
            return f"`{short(command.text)}`: {finding[1]}"
    if found.whole_repo:
        finding = places.read(".", repo_cwds(command, "."), tree=True, hidden=False)
        if finding is not None and finding[0] != "outside":
            return f"`{short(command.text)}`: {finding[1]}"
    return history_problem(places, command)


def history_problem(places: Places, command: Command) -> str | None:
    """A git command that can print committed files it does not name, where a Read deny
    rule may cover some of them (gitreads.py). Any git command, whatever allows it."""
    name = command.name
    if places.ctx.read_denied is None or not name or name.rsplit("/", 1)[-1] != "git":
        return None
    shown = short(command.text)
    call = git_call(command.argv)
    if call is None:
        return f"`{shown}`: git's options or words are not known before it runs"
    reach = history_reach(call)
    if reach is None:
        return None
    why = (
        "can print files committed to the repository, and a Read deny rule covers files "
        "there (pathspecs after `--` that leave them out narrow it)"
    )
    tops = _git_tops(command, call)
    if tops is None:
        return f"`{shown}` {why} (its repository is not known before it runs)"
    if not reach:
        if any(places.overlaps_denied(top) for top in tops):
            return f"`{shown}` {why}"
        return None
    cwds = _git_folders(command, call) or ()
    for pathspec in reach:
        if pathspec.startswith(":") or any(c in pathspec for c in "*?["):
            return f"`{shown}`: the pathspec {pathspec} may match files a Read deny rule covers"
        for cwd in cwds:
            target = os.path.realpath(os.path.join(cwd, pathspec))
            if places.overlaps_denied(target):
                return (
                    f"`{shown}`: the history of {pathspec} may hold files a Read deny rule covers"
                )
    return None


def _git_folders(command: Command, call: GitCall) -> tuple[Path, ...] | None:
    """The folders git runs in, after its `-C` options."""
    if command.cwds is None:
        return None
    folders = command.cwds
    for step in call.chdirs:
        folders = tuple(Path(os.path.normpath(os.path.join(f, step))) for f in folders)
    return folders


def _git_tops(command: Command, call: GitCall) -> list[str] | None:
    folders = _git_folders(command, call)
    if folders is None or call.repo_moved:
        return None
    return [os.path.realpath(_repo_top(folder)) for folder in folders]


def _may_match_protected(pattern: str, places: Places) -> bool:
    """A git pathspec pattern that could match a `.env` file (or, with Read deny
    rules, anything: the files it matches are not known here)."""
    if pattern.startswith(":") or places.ctx.read_denied is not None:
        return True
    last = pattern.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(name, last) for name in (".env", ".env.local"))


def _move_problem(places: Places, command: Command) -> str | None:
    if command.lands is None:
        return f"`{short(command.text)}` moves to a folder that is not known before it runs"
    for folder in command.lands:
        finding = places.read(str(folder), None, tree=False, hidden=False)
        if finding:
            return f"`{short(command.text)}`: {finding[1]}"
    return None


def denied_read(walk: Walk, places: Places) -> str | None:
    """Why the line is refused: something in it reads a file a Read deny rule covers."""
    for command in walk.all_commands():
        for redirect in command.redirects:
            if redirect.reads and redirect.target is not None and redirect.target.values:
                for value in redirect.target.values:
                    if places.denied(value, redirect.cwds):
                        return f"it reads {value}, which a Read deny rule covers"
        known = known_args(command)
        if not known or not (is_read_only_argv(known) or known[0] in MOVES):
            continue
        found = reads(command)
        for value in found.files + found.maybe + found.repo:
            cwds = repo_cwds(command, value) if value in found.repo else command.cwds
            if places.denied(value, cwds):
                return f"`{short(command.text)}` reads {value}, which a Read deny rule covers"
    return None


def repo_cwds(command: Command, path: str) -> tuple[Path, ...] | None:
    """`REV:path` is relative to the top of the repository (`REV:./path` to the folder)."""
    if command.cwds is None or path.startswith(("./", "../")):
        return command.cwds
    return tuple(_repo_top(cwd) for cwd in command.cwds)


def _repo_top(cwd: Path) -> Path:
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd
