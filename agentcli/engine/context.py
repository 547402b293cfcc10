"""What the model is told about its situation: the system prompt.

The prompt is part of the cached prefix, so it must be byte-stable across the
requests of a session: nothing in it changes per request (the date is the
day the session started, not a clock; the git status is a snapshot taken at
start). The last block carries the cache breakpoint that covers the tools and
the whole system prompt.

Blocks: the identity and environment, then (when there are any) the memory
files, so `/context` can count memory apart.
"""

from __future__ import annotations

import platform
import subprocess
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from agentcli.core.messages import SystemBlock
from agentcli.engine.caching import mark_system
from agentcli.engine.memory import MEMORY_HEADER, Memory, render_memory
from agentcli.permissions.types import PermissionMode

GIT_TIMEOUT_S = 3.0
GIT_STATUS_CHARS = 2000

IDENTITY = """\
You are agentcli, a coding agent working in the user's terminal, inside their project folder.
You help with software engineering: reading and explaining code, fixing bugs, adding features,
refactoring, running tests and commands.

How to work:
- Look before you change: read the relevant files, search with Grep and Glob, then act.
- Make the change the user asked for, and only that; keep the project's style.
- Prefer Edit for changing existing files; use Write for new files.
- Run the project's tests or checks when they exist and your change could affect them.
- When several independent reads or searches are needed, call the tools together in one
  response: they run concurrently.
- If a tool call is refused, do not retry the same call: adapt, or ask the user.
- Be concise. Answer in plain markdown; refer to code as `path:line`.
- Never invent file contents, command output or test results."""

PLAN_MODE = """\
Plan mode is on: you may only read and search. Study the code, then present a concrete,
step-by-step plan for the change. Do not edit files or run commands that change anything."""


@dataclass(frozen=True, slots=True)
class Environment:
    cwd: Path
    platform: str
    today: str
    is_git_repo: bool
    git_status: str | None = None

    @classmethod
    def detect(cls, cwd: Path, *, git: bool = False) -> Environment:
        """`git=True` also takes the git status snapshot (a few subprocesses)."""
        in_repo = _in_git_repo(cwd)
        return cls(
            cwd=cwd,
            platform=f"{platform.system()} {platform.release()}",
            today=date.today().isoformat(),
            is_git_repo=in_repo,
            git_status=git_status_summary(cwd) if git and in_repo else None,
        )


def _in_git_repo(path: Path) -> bool:
    return any((folder / ".git").exists() for folder in [path, *path.parents])


# A repository's own .git/config can name programs git runs for a status or a log
# (an fsmonitor hook, a signature checker); the snapshot is taken before the person
# has said anything about the folder, so it turns those off.
_NO_REPO_PROGRAMS = ("-c", "core.fsmonitor=false", "-c", "log.showSignature=false")


def _git(cwd: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *_NO_REPO_PROGRAMS, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_status_summary(cwd: Path) -> str | None:
    """Branch, main branch, `git status --short` (cut) and the last commits, as
    text for the system prompt; None when git is missing or fails."""
    branch = _git(cwd, "rev-parse", "--abbrev-ref", "HEAD")
    if branch is None:
        return None
    main = _git(cwd, "symbolic-ref", "--short", "refs/remotes/origin/HEAD")
    main = main.removeprefix("origin/") if main else None
    status = _git(cwd, "status", "--short") or ""
    if len(status) > GIT_STATUS_CHARS:
        status = status[:GIT_STATUS_CHARS] + "\n... (cut; run `git status` for the rest)"
    log = _git(cwd, "log", "--oneline", "-n", "5") or ""
    lines = [
        "Git status at the start of the session (a snapshot; it does not update):",
        f"Current branch: {branch}",
    ]
    if main:
        lines.append(f"Main branch (usually the target of pull requests): {main}")
    lines.append("Status:\n" + (status or "(clean)"))
    if log:
        lines.append("Recent commits:\n" + log)
    return "\n".join(lines)


def system_prompt(
    env: Environment,
    mode: PermissionMode,
    memory: Memory | None = None,
    sandbox_note: str | None = None,
) -> list[SystemBlock]:
    """The system prompt as content blocks (a list, so cache breakpoints can be placed).

    `sandbox_note`: what sandboxed commands can do (agentcli/sandbox), when it is on.
    """
    parts = [
        IDENTITY,
        "Environment:\n"
        f"- Working directory (the project folder): {env.cwd}\n"
        f"- Is a git repository: {'yes' if env.is_git_repo else 'no'}\n"
        f"- Platform: {env.platform}\n"
        f"- Today's date: {env.today}\n"
        f"- Permission mode: {mode.value}",
    ]
    if env.git_status:
        parts.append(env.git_status)
    if sandbox_note:
        parts.append(sandbox_note)
    if mode is PermissionMode.PLAN:
        parts.append(PLAN_MODE)
    blocks: list[SystemBlock] = [{"type": "text", "text": "\n\n".join(parts)}]
    if memory is not None and not memory.empty:
        blocks.append({"type": "text", "text": render_memory(memory)})
    return mark_system(blocks)


def with_memory(system: list[SystemBlock], memory: Memory) -> list[SystemBlock]:
    """`system` with its memory block made from `memory` (read again after a
    compaction): in the old block's place, or after the first block when there was
    none; gone when no memory file is left. The cache breakpoint moves to the last
    block again."""
    index = next(
        (i for i, b in enumerate(system) if b.get("text", "").startswith(MEMORY_HEADER)), None
    )
    blocks = [b for b in system if not b.get("text", "").startswith(MEMORY_HEADER)]
    if not memory.empty:
        place = index if index is not None else min(1, len(blocks))
        blocks.insert(place, {"type": "text", "text": render_memory(memory)})
    return mark_system(blocks)
