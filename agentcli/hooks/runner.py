"""Running one hook command: JSON on stdin, exit code and output back, a hard timeout.

The command runs through the shell in the project folder, in its own process
group, so a hook that hangs (or leaves children behind) is killed as a whole
at its timeout; one that leaves a child holding its output (`setsid daemon &`)
is heard as soon as it exits (core/child_process.py). Its output is kept up to a
bound as it arrives, so a hook that writes without end costs no memory. Like every process agentcli starts, it gets the settings'
`env` but not agentcli's own credentials (config/credentials.py), and the
project folder as `AGENTCLI_PROJECT_DIR` and `CLAUDE_PROJECT_DIR` (hooks
written for Claude Code say `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`).
Nothing here interprets the output; see events.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.config.credentials import child_env
from agentcli.config.hooks import HookCommand
from agentcli.core.child_process import run_child

MAX_OUTPUT_CHARS = 100_000


@dataclass(frozen=True, slots=True)
class HookRun:
    command: str
    exit_code: int | None  # None: it did not finish (timeout, could not start)
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str | None = None  # could not be started at all

    def json_output(self) -> dict[str, Any] | None:
        """stdout as a JSON object, when it is one (exit 0 only)."""
        text = self.stdout.strip()
        if self.exit_code != 0 or not text.startswith("{"):
            return None
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return None
        return data if isinstance(data, dict) else None


async def run_hook(
    hook: HookCommand, payload: dict[str, Any], cwd: Path, env: dict[str, str] | None = None
) -> HookRun:
    """Run `hook` with `payload` as JSON on stdin; kill its process group at the timeout."""
    project = str(cwd)  # CLAUDE_PROJECT_DIR: what Claude Code's hooks name their scripts by
    full_env = {
        **child_env(env or {}),
        "AGENTCLI_PROJECT_DIR": project,
        "CLAUDE_PROJECT_DIR": project,
    }
    try:
        done = await run_child(
            hook.command,
            stdin=json.dumps(payload).encode(),
            cwd=cwd,
            env=full_env,
            timeout_s=hook.timeout_s,
            limit=MAX_OUTPUT_CHARS * 4,  # enough bytes for the characters kept
        )
    except OSError as exc:
        return HookRun(hook.command, None, error=f"could not start: {exc}")
    if done.timed_out:
        return HookRun(hook.command, None, timed_out=True)
    return HookRun(hook.command, done.returncode, _text(done.stdout), _text(done.stderr))


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")[:MAX_OUTPUT_CHARS]
