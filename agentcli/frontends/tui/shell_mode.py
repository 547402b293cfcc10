"""`!command`: run a shell command directly, show its output, keep it for the model.

The output is shown in a pane like a Bash tool call and kept as a text block
that goes with the next message, so the model sees what the person ran.

It is the person's own command, so it is not sandboxed and needs no
permission; but its output goes to the model and the transcript, so like the
Bash tool it gets the settings' `env` and not agentcli's own credentials
(a setting that names one passes it on, see config/credentials.py).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Mapping
from pathlib import Path

from agentcli.config.credentials import child_env
from agentcli.core.messages import TextBlock

MAX_CONTEXT_CHARS = 30_000


def context_block(command: str, output: str, code: int | None) -> TextBlock:
    if len(output) > MAX_CONTEXT_CHARS:
        output = "…" + output[-MAX_CONTEXT_CHARS:]
    status = f"exit code {code}" if code is not None else "interrupted"
    return {
        "type": "text",
        "text": (
            "The user ran a shell command themselves:\n"
            f"<bash-input>{command}</bash-input>\n"
            f"<bash-output {status}>\n{output}\n</bash-output>"
        ),
    }


class ShellRun:
    """One `!` command; `kill()` stops it (Esc)."""

    def __init__(self, command: str, cwd: Path, env: Mapping[str, str] | None = None) -> None:
        self.command = command
        self.cwd = cwd
        self.env = child_env(env or {})
        self.proc: asyncio.subprocess.Process | None = None
        self.killed = False

    async def run(self, on_output: Callable[[str], object]) -> tuple[str, int | None]:
        self.proc = await asyncio.create_subprocess_shell(
            self.command,
            cwd=self.cwd,
            env=self.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        decoder_parts: list[str] = []
        while chunk := await self.proc.stdout.read(1 << 14):
            text = chunk.decode("utf-8", "replace")
            decoder_parts.append(text)
            on_output(text)
        code = await self.proc.wait()
        return "".join(decoder_parts), (None if self.killed else code)

    def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.killed = True
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
