"""`!command`: run a shell command directly, show its output, keep it for the model.

The output is shown in a pane like a Bash tool call and kept as a text block
that goes with the next message, so the model sees what the person ran.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

MAX_CONTEXT_CHARS = 30_000


def context_block(command: str, output: str, code: int | None) -> dict[str, str]:
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

    def __init__(self, command: str, cwd: Path) -> None:
        self.command = command
        self.cwd = cwd
        self.proc: asyncio.subprocess.Process | None = None
        self.killed = False

    async def run(self, on_output) -> tuple[str, int | None]:
        self.proc = await asyncio.create_subprocess_shell(
            self.command,
            cwd=self.cwd,
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
