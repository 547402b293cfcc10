"""Running a command under bubblewrap, or saying plainly why it cannot run.

One `Sandbox` per session, built from the settings (`sandbox.enabled`, or
`--sandbox`) and kept on the Workspace, where the Bash tool and the
permission policy find it. It never falls back silently: when bwrap is
missing, cannot start here, or the layout would leave the home folder
writable, `problem()` says why, the front end shows it on start, and the
Bash tool refuses every command with it.

Each command is set up from a fresh look at the disk (survey.py): what the
session's Read deny rules and the always-protected list cover is masked, the
agent configuration places are held read-only (placeholders.py holds the
missing ones), and links at them are put back after (links.py). After the
command, what it made at those names in subfolders is moved out of the
project (aftercheck.py). Where a look is incomplete, Bash calls are not
auto-allowed.

bwrap's own process model keeps interrupting simple: the command's processes
stay in the process group the Bash tool kills; with a pid namespace and
`--die-with-parent`, whatever is left dies with bwrap, even a process that
started a session of its own.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.config.paths import agentcli_home, project_dir
from agentcli.config.rules import Rule
from agentcli.sandbox import survey as surveying
from agentcli.sandbox.aftercheck import Tree, move_out, new_places
from agentcli.sandbox.layout import (
    Layout,
    bwrap_args,
    hidden_paths,
    shown_in_tmp,
    writable_roots,
)
from agentcli.sandbox.links import put_back
from agentcli.sandbox.placeholders import HeldPlaces, PlaceholderError, is_placeholder
from agentcli.sandbox.seccomp import unix_socket_filter
from agentcli.sandbox.survey import Survey, exact_read_allows, read_deny_patterns, read_rules

_PROBE_TIMEOUT_S = 10.0
_INSTALL_HINT = "install bubblewrap (for example `apt-get install bubblewrap`)"


@dataclass(frozen=True, slots=True)
class Launch:
    """What to execute for one sandboxed command; `pass_fds` must reach bwrap.

    `finish()`, once the command and everything it started have ended (or it never
    started), undoes what was set up for it and says what the command should be told."""

    argv: list[str]
    executable: str
    pass_fds: tuple[int, ...]
    finish: Callable[[], list[str]] = field(default=lambda: [])


class LaunchRefused(Exception):
    """The sandbox cannot be set up for this command; the message says why."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """One command's sandbox, set up (its places held) but not started."""

    layout: Layout
    finish: Callable[[], list[str]]
    bwrap: str

    @contextmanager
    def launch(self, command: list[str]) -> Iterator[Launch]:
        """bwrap running `command`: start it inside the `with` (the filter's fd closes
        after), and call the Launch's `finish()` once it has ended."""
        try:
            filter_fd = _filter_pipe()
        except BaseException:
            self.finish()
            raise
        try:
            argv = ["bwrap", *bwrap_args(self.layout, filter_fd), "--", *command]
            yield Launch(argv, self.bwrap, (filter_fd,), self.finish)
        finally:
            os.close(filter_fd)


class Sandbox:
    """The session's sandbox settings, and the one way commands start under them."""

    def __init__(self, *, network: bool = False, auto_allow_bash: bool = True) -> None:
        self.network = network
        self._auto_allow = auto_allow_bash
        self._roots: Callable[[], Sequence[Path]] = lambda: ()
        self._deny_rules: Callable[[], Sequence[Rule]] = lambda: ()
        self._allow_rules: Callable[[], Sequence[Rule]] = lambda: ()
        self._bwrap = shutil.which("bwrap")
        self._probed = False
        self._probe_problem: str | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._known: tuple[tuple[tuple[Path, ...], tuple[str, ...]], list[str]] | None = None
        # The looks of this session's commands that run now (a subagent's beside its
        # parent's): what one of them made is no other one's "before".
        self._running: list[Tree] = []
        self._looking = threading.Lock()

    def follow(
        self,
        *,
        roots: Callable[[], Sequence[Path]],
        deny_rules: Callable[[], Sequence[Rule]],
        allow_rules: Callable[[], Sequence[Rule]] = lambda: (),
    ) -> None:
        """Where the session's writable folders and rules are read from, as they are when
        a command starts (bootstrap.connect_sandbox)."""
        self._roots, self._deny_rules, self._allow_rules = roots, deny_rules, allow_rules

    @property
    def auto_allow_bash(self) -> bool:
        """`autoAllowBashIfSandboxed`, while the sandbox can stand in for the rules: not
        while part of the disk could not be looked through (`gap()`)."""
        return self._auto_allow and self.gap() is None

    def gap(self) -> str | None:
        """Why the sandbox cannot hide everything the rules protect, or None: as the last
        command found it (each command looks again, see `prepare`), or looked at now when
        none has looked with these folders and rules."""
        roots = writable_roots(self._roots())
        if not roots:
            return None
        if self._known is not None and self._known[0] == self._key(roots):
            gaps = self._known[1]
        else:
            gaps = self._survey(roots).gaps
        return "; ".join(gaps) if gaps else None

    def problem(self, writable: Sequence[Path]) -> str | None:
        """Why commands cannot run sandboxed with these writable folders, or None."""
        return _home_problem(writable) or self.check()

    def check(self) -> str | None:
        """Why bwrap cannot start a sandbox on this machine, or None (tried once, then kept)."""
        if not self._probed:
            self._probe_problem = _probe(self._bwrap)
            self._probed = True
        return self._probe_problem

    def describe(self) -> str:
        """One line for /status: what a sandboxed command may do."""
        network = "network allowed" if self.network else "no network"
        gap = self.gap() if self._auto_allow else None
        if gap:
            allowed = (
                f"asked about, since the sandbox cannot hide everything the rules protect ({gap})"
            )
        else:
            allowed = "auto-allowed" if self._auto_allow else "asked about as usual"
        return (
            "on (bubblewrap): Bash commands write only in the project and added folders, "
            f"{network}, credential folders and Read-denied files hidden; Bash calls are {allowed}"
        )

    def model_note(self) -> str:
        """For the system prompt: what the model's commands can do, and what a failure means."""
        network = (
            "The network is available."
            if self.network
            else "There is no network (no downloads, no package installs from the internet)."
        )
        return (
            "Bash sandbox: every Bash command runs in an OS sandbox. Commands can write only "
            "in the project folder (and added folders). There, .git, .agentcli, .claude, "
            ".mcp.json, AGENTS.md and CLAUDE.md are read-only (one that does not exist shows "
            "as an empty read-only folder and cannot be created), so git commands that write "
            "(commit, checkout, stash, init) fail: leave those to the user, and edit "
            "AGENTS.md or CLAUDE.md with the Edit tool. One of those names that a command "
            "creates in a subfolder (git init, git clone and archives included) is moved out "
            "of the project after the command, as its result says: ask the user to create "
            "repositories and agent settings there. Files a permission rule keeps from "
            "being read, and .env files, cannot be opened. The rest of the disk is read-only "
            "and credential folders are empty. /tmp is private to these commands: the user "
            "does not see what is written there, so put files the user needs in the project. "
            f"{network} Unix sockets cannot be opened. An error such as 'Read-only file "
            "system', 'Permission denied' or a failed connection comes from the sandbox: tell "
            "the user what needs to happen outside it rather than trying to work around it."
        )

    def prepare(
        self,
        *,
        writable: Sequence[Path],
        cwd: Path,
        read_files: Sequence[Path] = (),
        write_files: Sequence[Path] = (),
    ) -> Prepared:
        """Set one command's sandbox up: look at the disk, hold the missing protected
        places. LaunchRefused when that fails, or when the sandbox can no longer hide
        everything although the last look said it could (a call may have been auto-allowed
        on that word: it is refused once, and the next one is asked about)."""
        bwrap = self._bwrap
        if bwrap is None:
            raise RuntimeError("prepare() without bwrap: check problem() first")
        roots = writable_roots(writable)
        key = self._key(roots)
        before = self._known[1] if self._known is not None and self._known[0] == key else None
        with self._looking:
            found = self._survey(roots)
            self._running.append(found.tree)
        try:
            held, layout = self._held(roots, cwd, found, before, read_files, write_files)
        except BaseException:
            with self._looking:
                self._forget(found.tree)
            raise
        data_dir = project_dir(roots[0]) if roots else agentcli_home()
        return Prepared(layout, _Finish(found, held, data_dir, self._after), bwrap)

    def _held(
        self,
        roots: Sequence[Path],
        cwd: Path,
        found: Survey,
        before: list[str] | None,
        read_files: Sequence[Path],
        write_files: Sequence[Path],
    ) -> tuple[HeldPlaces, Layout]:
        """The command's places held, and its mounts; LaunchRefused when it cannot run."""
        if found.gaps and before == [] and self._auto_allow:
            raise LaunchRefused(
                "it can no longer hide everything the rules protect "
                f"({'; '.join(found.gaps)}), so it did not run this command, which may have "
                "been allowed for that reason; from now on Bash calls are asked about"
            )
        held = HeldPlaces()
        try:
            held.acquire(found.protected, found.missing)
        except PlaceholderError as error:
            raise LaunchRefused(f"it cannot protect {error}") from None
        layout = Layout(
            writable=roots,
            hidden=hidden_paths(Path.home(), agentcli_home()),
            private_tmp=self._private_tmp(),
            cwd=cwd,
            survey=found,
            shown_in_tmp=shown_in_tmp(roots, Path.home()),
            network=self.network,
            read_files=tuple(read_files),
            write_files=tuple(write_files),
        )
        return held, layout

    def _after(self, tree: Tree, aside: Path) -> list[str]:
        """After one command: move out the agent places it made below the top of the
        writable folders (aftercheck.py), and tell the other running commands."""
        with self._looking:
            found = new_places(tree, surveying.WALK_LIMIT)
            self._forget(tree)
            for other in self._running:
                other.places.difference_update(found.new)
            notes = move_out(found, tree.roots, aside)
            if not found.complete and self._known is not None:
                gap = (
                    f"the last command made more than {surveying.WALK_LIMIT:,} files and "
                    "folders to look through"
                )
                self._known = (self._known[0], [*self._known[1], gap])
        return notes

    def _forget(self, tree: Tree) -> None:
        """No longer running (call it holding `_looking`)."""
        self._running = [other for other in self._running if other is not tree]

    def _key(self, roots: Sequence[Path]) -> tuple[tuple[Path, ...], tuple[str, ...]]:
        deny, allow = read_rules(self._deny_rules()), read_rules(self._allow_rules())
        rules = tuple(
            f"{kind}:{rule}@{rule.base}"
            for kind, rules in (("deny", deny), ("allow", allow))
            for rule in rules
        )
        return tuple(roots), rules

    def _survey(self, roots: Sequence[Path]) -> Survey:
        """Look at the disk, and keep what was found for `gap()` until the folders or the
        rules change, or the next command looks again."""
        base = roots[0] if roots else Path.cwd()
        denied = read_deny_patterns(self._deny_rules(), base)
        allowed = exact_read_allows(self._allow_rules(), base)
        hidden = hidden_paths(Path.home(), agentcli_home())
        found = surveying.survey(roots, denied, hidden, allowed)
        self._known = (self._key(roots), list(found.gaps))
        return found

    def _private_tmp(self) -> Path:
        """The session's /tmp for sandboxed commands (removed when the session ends)."""
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(
                prefix="agentcli-sandbox-", ignore_cleanup_errors=True
            )
        return Path(self._tmp.name)


class _Finish:
    """After one command: put back swapped links, release and remove placeholders, move
    out the places it made (once)."""

    def __init__(
        self,
        found: Survey,
        held: HeldPlaces,
        data_dir: Path,
        after: Callable[[Tree, Path], list[str]],
    ) -> None:
        self._found = found
        self._held = held
        self._data_dir = data_dir
        self._after = after
        self._done = False

    def __call__(self) -> list[str]:
        if self._done:
            return []
        self._done = True
        found = self._found
        aside = self._data_dir / "sandbox-displaced" / time.strftime("%Y%m%d-%H%M%S")
        notes = put_back(found.links, lambda: aside)
        stale = [p for p in [*found.protected, *found.missing] if is_placeholder(p)]
        self._held.release(stale)
        notes += self._after(found.tree, aside)
        if found.gaps:
            notes.append(
                f"(The sandbox could not look through everything ({'; '.join(found.gaps)}): "
                "files a Read deny rule covers, and protected places, may not all be hidden "
                "or read-only for this command, and agent places it made there may not all "
                "be moved aside. Bash calls are asked about until that changes.)"
            )
        return notes


def unavailable_message(problem: str) -> str:
    """What the person and the model are told when a sandboxed command cannot run."""
    return (
        f"The sandbox is on but cannot run commands: {problem}. Bash commands are refused "
        "until that is fixed or the sandbox is turned off (without --sandbox, and with "
        '"sandbox": {"enabled": false} in settings).'
    )


def _filter_pipe() -> int:
    """A pipe holding the seccomp program; bwrap reads it from the returned end."""
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, unix_socket_filter())
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    return read_fd


def _home_problem(writable: Sequence[Path]) -> str | None:
    home = Path.home().resolve()
    for folder in writable:
        if home.is_relative_to(folder.resolve()):
            return (
                f"{folder} would be writable and holds your home folder, whose start-up "
                "files and credentials a command could change; start agentcli in a "
                "project folder"
            )
    return None


def _probe(bwrap: str | None) -> str | None:
    """Start one empty sandbox with the session's options; why it failed, or None."""
    if sys.platform != "linux":
        return "the sandbox needs Linux and bubblewrap"
    if bwrap is None:
        return f"bubblewrap is not installed (no `bwrap` on PATH); {_INSTALL_HINT}"
    try:
        filter_fd = _filter_pipe()
    except ValueError:
        return f"the sandbox's system call filter does not know this machine ({platform.machine()})"
    argv = [bwrap, "--ro-bind", "/", "/", "--unshare-user", "--disable-userns", "--unshare-pid"]
    argv += ["--unshare-net", "--cap-drop", "ALL", "--seccomp", str(filter_fd), "--", "true"]
    try:
        done = subprocess.run(
            argv,
            pass_fds=(filter_fd,),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap could not be run: {error}"
    finally:
        os.close(filter_fd)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap cannot start a sandbox here ({said[-1] if said else done.returncode})"
    return None
