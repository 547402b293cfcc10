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
import codecs
from collections.abc import Callable, Mapping
from pathlib import Path

from agentcli.config.credentials import child_env
from agentcli.core.child_process import run_child
from agentcli.core.messages import TextBlock

MAX_CONTEXT_CHARS = 30_000
MAX_KEPT_CHARS = 200_000  # of the output, for the pane's final text: `!yes` is bounded


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
    """One `!` command; `kill()` stops it (Esc).

    It ends when the command exits (and its output ends, or a moment after: a job it
    left running keeps its output, not the prompt), or when killed, whatever the
    command left behind holding the pipe (core/child_process.py).
    """

    def __init__(self, command: str, cwd: Path, env: Mapping[str, str] | None = None) -> None:
        self.command = command
        self.cwd = cwd
        self.env = child_env(env or {})
        self.killed = False
        self._stop = asyncio.Event()

    async def run(self, on_output: Callable[[str], object]) -> tuple[str, int | None]:
        """Run it, telling `on_output` of its output as it comes; the output's last
        `MAX_KEPT_CHARS` and its exit code (None: killed) when it ends."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        kept: list[str] = []
        size = 0

        def on_data(data: bytes) -> None:
            nonlocal size
            text = decoder.decode(data)
            if not text:
                return
            kept.append(text)
            size += len(text)
            if size > 2 * MAX_KEPT_CHARS:
                whole = "".join(kept)[-MAX_KEPT_CHARS:]
                kept[:] = [whole]
                size = len(whole)
            on_output(text)

        done = await run_child(
            self.command,
            stdin=None,
            cwd=self.cwd,
            env=self.env,
            timeout_s=None,
            limit=0,  # kept here, decoded, as it arrives
            stderr="into_stdout",
            on_stdout=on_data,
            stop=self._stop,
        )
        tail = decoder.decode(b"", final=True)
        if tail:
            kept.append(tail)
            on_output(tail)
        output = "".join(kept)[-MAX_KEPT_CHARS:]
        return output, (None if self.killed or done.timed_out else done.returncode)

    def kill(self) -> None:
        self.killed = True
        self._stop.set()
