"""What a sandboxed command sees of the disk: the bubblewrap mount layout.

Built in one order, because later mounts cover earlier ones:

1. the whole disk read-only, a fresh /dev and /proc (its own process tree:
   agentcli and the person's other processes are not in it), and a private
   /tmp (a folder of this session's, so files there outlive one command);
2. the credential stores and AGENTCLI_HOME replaced by empty read-only
   folders (a file by /dev/null);
3. the writable folders (the project, `--add-dir` folders) bound read-write;
4. inside them, what a command must not change because it would act outside
   the sandbox later: `.git` (a hook or a `core.fsmonitor` there runs on the
   person's next git command, and agentcli runs `git status` on start),
   `.agentcli` (its settings would loosen the next session's permissions) and
   `.claude`, bound read-only;
5. hidden paths that lie inside a writable folder, hidden again;
6. the Bash tool's own small files (its start-up script, read-only; the file
   the shell reports its directory in, writable), which live in hidden
   AGENTCLI_HOME.

Then no network (unless allowed), no capabilities, no new user namespaces,
and the seccomp filter that refuses Unix sockets (seccomp.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

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
# In each writable folder: kept read-only. `.agentcli` is created when missing (an
# empty folder), since one a command could create would hold settings of its own.
KEPT_READ_ONLY = (".git", ".claude")
AGENTCLI_FOLDER = ".agentcli"


@dataclass(frozen=True, slots=True)
class Layout:
    """Everything the mounts depend on; paths are absolute and resolved."""

    writable: Sequence[Path]
    hidden: Sequence[Path]
    kept_read_only: Sequence[Path]
    private_tmp: Path
    cwd: Path
    network: bool = False
    read_files: Sequence[Path] = field(default_factory=tuple)
    write_files: Sequence[Path] = field(default_factory=tuple)


def prepare(
    writable: Sequence[Path],
    home: Path,
    agentcli_home: Path,
    private_tmp: Path,
    cwd: Path,
    *,
    network: bool = False,
    read_files: Sequence[Path] = (),
    write_files: Sequence[Path] = (),
) -> Layout:
    """The layout for this disk (only what exists is hidden or kept read-only).

    Creates an empty `.agentcli` in each writable folder that has none.
    """
    roots = [path.resolve() for path in writable if path.is_dir()]
    candidates = [home / name for name in HIDDEN_IN_HOME] + [agentcli_home]
    hidden = _unique(path.resolve() for path in candidates if path.exists())
    kept: list[Path] = []
    for root in roots:
        try:
            (root / AGENTCLI_FOLDER).mkdir(exist_ok=True)
        except OSError:  # a folder we may not write to: neither may the command
            pass
        kept += [root / name for name in (*KEPT_READ_ONLY, AGENTCLI_FOLDER)]
    kept_existing = _unique(path for path in kept if path.exists())
    return Layout(
        writable=roots,
        hidden=hidden,
        kept_read_only=kept_existing,
        private_tmp=private_tmp,
        cwd=cwd,
        network=network,
        read_files=tuple(read_files),
        write_files=tuple(write_files),
    )


def bwrap_args(layout: Layout, seccomp_fd: int) -> list[str]:
    """bwrap's options for `layout`, to be followed by `--` and the command."""
    inside = [p for p in layout.hidden if _within_any(p, layout.writable)]
    outside = [p for p in layout.hidden if p not in inside]
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += ["--bind", str(layout.private_tmp), "/tmp"]
    args += _hide(outside)
    for root in layout.writable:
        args += ["--bind", str(root), str(root)]
    for path in layout.kept_read_only:
        args += ["--ro-bind", str(path), str(path)]
    args += _hide(inside)
    for path in layout.read_files:
        args += ["--ro-bind", str(path), str(path)]
    for path in layout.write_files:
        args += ["--bind", str(path), str(path)]
    for path in layout.hidden:
        if path.is_dir():
            args += ["--remount-ro", str(path)]
    args += ["--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-ipc"]
    if not layout.network:
        args.append("--unshare-net")
    args += ["--die-with-parent", "--cap-drop", "ALL", "--setenv", "TMPDIR", "/tmp"]
    args += ["--chdir", str(layout.cwd), "--seccomp", str(seccomp_fd)]
    return args


def _hide(paths: Sequence[Path]) -> list[str]:
    args: list[str] = []
    for path in paths:
        if path.is_dir():
            args += ["--tmpfs", str(path)]
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    return args


def _within_any(path: Path, folders: Sequence[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def _unique(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))
