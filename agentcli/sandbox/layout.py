"""What a sandboxed command sees of the disk: the bubblewrap mount layout.

Built in one order, because later mounts cover earlier ones:

1. the whole disk read-only; a fresh /dev, read-only but for its own
   /dev/shm (so a write to /dev/x fails instead of landing in a throwaway
   folder); /proc of its own process tree (agentcli and the person's other
   processes are not in it);
2. a private /tmp (a folder of this session's, so files there outlive one
   command, removed when the session ends); the host folders under /tmp
   that lead to the home folder or a writable folder are shown over it
   read-only, so a write there fails rather than vanishing in the private one;
3. the credential stores, AGENTCLI_HOME, and what the survey masks outside
   the writable folders, made unreadable: a folder an empty read-only one, a
   file /dev/null (which, mounted without device access, cannot be opened);
4. the writable folders (the project, `--add-dir` folders) bound read-write;
5. inside them (survey.py): the folders on the way to a protected place
   bound onto themselves (they cannot be renamed), then the protected places
   read-only, the missing ones over their placeholders (placeholders.py);
6. what is masked inside the writable folders;
7. the Bash tool's own small files (its start-up script, read-only; the file
   the shell reports its directory in, writable), which live in hidden
   AGENTCLI_HOME.

Then no network (unless allowed), no capabilities, no new user namespaces,
and the seccomp filter that refuses Unix sockets (seccomp.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.sandbox.survey import Survey

# Under the home folder: where credentials usually live. Hidden even with network on.
HIDDEN_IN_HOME = (
    ".ssh",
    ".aws",
    ".config/gcloud",
    ".azure",
    ".gnupg",
    ".kube",
    ".docker",
    ".config/gh",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".claude",
    ".claude.json",
)
_HOST_TMP = Path("/tmp")


@dataclass(frozen=True, slots=True)
class Layout:
    """Everything the mounts depend on; paths are absolute and resolved."""

    writable: Sequence[Path]
    hidden: Sequence[Path]
    private_tmp: Path
    cwd: Path
    survey: Survey = field(default_factory=Survey)
    shown_in_tmp: Sequence[Path] = field(default_factory=tuple)
    network: bool = False
    read_files: Sequence[Path] = field(default_factory=tuple)
    write_files: Sequence[Path] = field(default_factory=tuple)


def writable_roots(writable: Sequence[Path]) -> list[Path]:
    """The writable folders that exist, resolved."""
    return _unique(path.resolve() for path in writable if path.is_dir())


def hidden_paths(home: Path, agentcli_home: Path) -> list[Path]:
    """The credential stores and AGENTCLI_HOME that exist, resolved."""
    candidates = [home / name for name in HIDDEN_IN_HOME] + [agentcli_home]
    return _unique(path.resolve() for path in candidates if path.exists())


def shown_in_tmp(roots: Sequence[Path], home: Path) -> list[Path]:
    """The host's folders right under /tmp that hold the home folder or a writable one."""
    shown: list[Path] = []
    for path in [*roots, home.resolve()]:
        if path.is_relative_to(_HOST_TMP) and path != _HOST_TMP:
            top = _HOST_TMP / path.relative_to(_HOST_TMP).parts[0]
            if top not in roots:
                shown.append(top)
    return _unique(shown)


def bwrap_args(layout: Layout, seccomp_fd: int) -> list[str]:
    """bwrap's options for `layout`, to be followed by `--` and the command."""
    found = layout.survey
    unreadable = _unique([*layout.hidden, *found.masked])
    inside = [p for p in unreadable if _within_any(p, layout.writable)]
    outside = [p for p in unreadable if p not in inside]
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/dev/shm", "--proc", "/proc"]
    args += ["--bind", str(layout.private_tmp), "/tmp"]
    for path in layout.shown_in_tmp:
        args += ["--ro-bind", str(path), str(path)]
    args += _hide(outside)
    for root in layout.writable:
        args += ["--bind", str(root), str(root)]
    for path in found.pinned:
        args += ["--bind", str(path), str(path)]
    for path in sorted([*found.protected, *found.missing]):
        args += ["--ro-bind", str(path), str(path)]
    args += _hide(inside)
    for path in layout.read_files:
        args += ["--ro-bind", str(path), str(path)]
    for path in layout.write_files:
        args += ["--bind", str(path), str(path)]
    for path in unreadable:
        if path.is_dir():
            args += ["--remount-ro", str(path)]
    args += ["--remount-ro", "/dev"]
    args += ["--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-ipc"]
    if not layout.network:
        args.append("--unshare-net")
    args += ["--die-with-parent", "--cap-drop", "ALL", "--setenv", "TMPDIR", "/tmp"]
    args += ["--chdir", str(layout.cwd), "--seccomp", str(seccomp_fd)]
    return args


def _hide(paths: Sequence[Path]) -> list[str]:
    args: list[str] = []
    for path in sorted(paths):
        if path.is_dir():
            args += ["--tmpfs", str(path)]
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    return args


def _within_any(path: Path, folders: Sequence[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def _unique(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))
