"""What the analysis of a Bash line needs to know about the session."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ShellContext:
    """Built by the policy for each decision."""

    cwd: Path  # where the line starts: the shell's current folder
    roots: tuple[Path, ...]  # the project and added folders
    env: Mapping[str, str]  # the environment the command will get
    project: Path  # for special paths (settings files)
    read_denied: Callable[[Path], bool] | None = None  # None: no Read deny rules
    # The folders the Read deny rules' matches lie in (PathPattern.root): git's history
    # readers ask when the repository overlaps one of them (gitreads.py).
    read_denied_roots: tuple[Path, ...] = ()
    scratch: Path | None = None  # agentcli's own saved outputs: reading them is fine
