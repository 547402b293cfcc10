"""What the model is told about its situation: the system prompt.

The prompt is part of the cached prefix, so it must be byte-stable across the
requests of a session: nothing in it changes per request (the date is the
day the session started, not a clock).
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from agentcli.permissions.types import PermissionMode

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

    @classmethod
    def detect(cls, cwd: Path) -> Environment:
        return cls(
            cwd=cwd,
            platform=f"{platform.system()} {platform.release()}",
            today=date.today().isoformat(),
            is_git_repo=_in_git_repo(cwd),
        )


def _in_git_repo(path: Path) -> bool:
    return any((folder / ".git").exists() for folder in [path, *path.parents])


def system_prompt(env: Environment, mode: PermissionMode) -> list[dict[str, Any]]:
    """The system prompt as content blocks (a list, so cache breakpoints can be placed)."""
    parts = [
        IDENTITY,
        "Environment:\n"
        f"- Working directory (the project folder): {env.cwd}\n"
        f"- Is a git repository: {'yes' if env.is_git_repo else 'no'}\n"
        f"- Platform: {env.platform}\n"
        f"- Today's date: {env.today}\n"
        f"- Permission mode: {mode.value}",
    ]
    if mode is PermissionMode.PLAN:
        parts.append(PLAN_MODE)
    return [{"type": "text", "text": "\n\n".join(parts)}]
