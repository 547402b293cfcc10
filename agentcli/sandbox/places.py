"""The places a sandboxed command must leave as they are, because something outside runs them.

In every writable folder: `.git` (a hook or `core.fsmonitor` runs on the
person's next git command, and agentcli runs `git status` on start),
`.agentcli/` and `.claude/` (settings, hooks, custom commands with
`allowed-tools` and `!` lines, skills, agents), `.mcp.json` (servers that
start with the next session) and `AGENTS.md`/`CLAUDE.md` (instructions the
next session believes). They are protected whether or not they exist: one a
command could create would be as good as one it could change.

A `.git` that is a file (worktrees, submodules, `--separate-git-dir`) names
the folder git really uses, and that folder's `commondir` the one hooks and
config live in: both are protected like `.git` itself.
"""

from __future__ import annotations

import os

AGENT_PLACES = (".git", ".agentcli", ".claude", ".mcp.json", "AGENTS.md", "CLAUDE.md")
GIT = ".git"
_POINTER_MAX_BYTES = 4096


def git_pointer(path: str) -> str | None:
    """The folder a `.git` file names (`gitdir: ...`, relative to the file), or None."""
    text = _small_text(path)
    if text is None:
        return None
    first = text.splitlines()[0] if text else ""
    if not first.startswith("gitdir:"):
        return None
    target = first.removeprefix("gitdir:").strip()
    return os.path.join(os.path.dirname(path), target) if target else None


def common_dir(gitdir: str) -> str | None:
    """The repository folder a worktree's git folder shares (its `commondir` file), or None."""
    text = _small_text(os.path.join(gitdir, "commondir"))
    if not text or not text.strip():
        return None
    return os.path.join(gitdir, text.strip())


def _small_text(path: str) -> str | None:
    try:
        with open(path, "rb") as file:
            data = file.read(_POINTER_MAX_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", "replace")
