"""A child that parses untrusted bytes, confined: no network, no other process, none of
the person's files but the Python it runs.

Read's PDF child hands a file the model chose to PDFium, a C library. A bug there that
a crafted file reaches would run code as the person, with the person's network (to
send out what it finds) and files: `~/.ssh`, the shell's history, agentcli's own API
key in `/proc/<pid>/environ`. The child's own limits (memory, CPU time, no file
written: tools/pdf_worker.py) stop a file that merely exhausts it, not one that takes
it over. So, where bubblewrap works, the child runs in namespaces of its own: no
network but its own loopback, its own process tree with a fresh `/proc`, a minimal
`/dev`, the system read-only, and empty folders over the home folders, `/tmp` and
`/run`, with only the Python it needs (its prefixes and import paths) put back,
read-only. Its pipes and the descriptors it is handed stay its only way out.

Where bwrap is missing or cannot start a sandbox (macOS; a container without user
namespaces), `confined()` gives the command back as it was, and says so: the child's
own limits still hold (docs/tools.md).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# What is hidden (when it exists): where people keep what is theirs, and the shared
# scratch folders another program's secrets sit in.
_HIDDEN = ("/home", "/root", "/tmp", "/var/tmp", "/run", "/media", "/mnt")


@dataclass(frozen=True, slots=True)
class Confined:
    argv: list[str]
    pass_fds: tuple[int, ...]  # the filter's pipe, for bwrap: pass them on to Popen
    confined: bool  # False: bubblewrap cannot run here, `argv` is the command as given


@cache
def _bwrap_problem() -> str | None:
    from agentcli.sandbox.bubblewrap import Sandbox

    return Sandbox().check()


def confinement_problem() -> str | None:
    """Why children cannot be confined on this machine, or None (probed once)."""
    return _bwrap_problem()


@contextmanager
def confined(argv: Sequence[str], readable: Sequence[Path] = ()) -> Iterator[Confined]:
    """`argv` to run confined (see the module's doc), with `readable` folders shown too.

    The descriptors in `pass_fds` are closed when the block ends: start the child in it.
    """
    if _bwrap_problem() is not None:
        yield Confined(list(argv), (), confined=False)
        return
    from agentcli.sandbox.bubblewrap import _filter_pipe

    bwrap = shutil.which("bwrap")
    assert bwrap is not None  # the probe found it
    filter_fd = _filter_pipe()
    try:
        yield Confined(
            [bwrap, *_options(readable), "--seccomp", str(filter_fd), "--", *argv],
            (filter_fd,),
            confined=True,
        )
    finally:
        os.close(filter_fd)


def _options(readable: Sequence[Path]) -> list[str]:
    options = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    hidden = [Path(p) for p in _HIDDEN]
    home = Path.home()
    if not any(home.is_relative_to(h) for h in hidden):
        hidden.append(home)
    hidden = [h for h in hidden if h.is_dir() and not h.is_symlink()]
    for folder in hidden:
        options += ["--tmpfs", str(folder)]
    for shown in _shown(hidden, readable):
        options += ["--ro-bind", str(shown), str(shown)]
    options += ["--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-net"]
    options += ["--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL"]
    options += ["--die-with-parent", "--new-session", "--chdir", "/"]
    return options


def _shown(hidden: Sequence[Path], readable: Sequence[Path]) -> list[Path]:
    """The folders under a hidden one the child needs: Python's and the caller's."""
    wanted = [Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path) if p]
    wanted += readable
    shown: list[Path] = []
    for path in wanted:
        for candidate in {path, path.resolve()} if path.exists() else ():
            if any(candidate.is_relative_to(h) for h in hidden) and candidate not in shown:
                shown.append(candidate)
    # A folder inside one already shown needs no mount of its own; the outer comes first.
    shown.sort(key=lambda p: len(p.parts))
    return [p for i, p in enumerate(shown) if not any(p.is_relative_to(q) for q in shown[:i])]
