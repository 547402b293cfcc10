"""Running a command under bubblewrap, or saying plainly why it cannot run.

One `Sandbox` per session, built from the settings (`sandbox.enabled`, or
`--sandbox`) and kept on the Workspace, where the Bash tool and the
permission policy find it. It never falls back silently: when bwrap is
missing, cannot start here, or the layout would leave the home folder
writable, `problem()` says why, the front end shows it on start, and the
Bash tool refuses every command with it.

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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentcli.config.paths import agentcli_home
from agentcli.sandbox.layout import bwrap_args, prepare
from agentcli.sandbox.seccomp import unix_socket_filter

_PROBE_TIMEOUT_S = 10.0
_INSTALL_HINT = "install bubblewrap (for example `apt-get install bubblewrap`)"


@dataclass(frozen=True, slots=True)
class Launch:
    """What to execute for one sandboxed command; `pass_fds` must reach bwrap."""

    argv: list[str]
    executable: str
    pass_fds: tuple[int, ...]


class Sandbox:
    """The session's sandbox settings, and the one way commands start under them."""

    def __init__(self, *, network: bool = False, auto_allow_bash: bool = True) -> None:
        self.network = network
        self.auto_allow_bash = auto_allow_bash
        self._bwrap = shutil.which("bwrap")
        self._probed = False
        self._probe_problem: str | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

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
        allowed = "auto-allowed" if self.auto_allow_bash else "asked about as usual"
        return (
            "on (bubblewrap): Bash commands write only in the project and added folders, "
            f"{network}, credential folders hidden; Bash calls are {allowed}"
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
            "in the project folder (and added folders); .git and .agentcli there are "
            "read-only, so git commands that write (commit, checkout, stash) fail: leave those "
            "to the user. The rest of the disk is read-only and credential folders are empty. "
            f"{network} Unix sockets cannot be opened. An error such as 'Read-only file "
            "system' or a failed connection comes from the sandbox: tell the user what needs "
            "to happen outside it rather than trying to work around it."
        )

    @contextmanager
    def launch(
        self,
        command: list[str],
        *,
        writable: Sequence[Path],
        cwd: Path,
        read_files: Sequence[Path] = (),
        write_files: Sequence[Path] = (),
    ) -> Iterator[Launch]:
        """bwrap running `command`; start it inside the `with` (the filter's fd closes after)."""
        if self._bwrap is None:
            raise RuntimeError("launch() without bwrap: check problem() first")
        layout = prepare(
            writable,
            Path.home(),
            agentcli_home(),
            self._private_tmp(),
            cwd,
            network=self.network,
            read_files=read_files,
            write_files=write_files,
        )
        filter_fd = _filter_pipe()
        try:
            argv = ["bwrap", *bwrap_args(layout, filter_fd), "--", *command]
            yield Launch(argv, self._bwrap, (filter_fd,))
        finally:
            os.close(filter_fd)

    def _private_tmp(self) -> Path:
        """The session's /tmp for sandboxed commands (removed when the session ends)."""
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(
                prefix="agentcli-sandbox-", ignore_cleanup_errors=True
            )
        return Path(self._tmp.name)


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
