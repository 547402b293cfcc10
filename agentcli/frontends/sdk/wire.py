"""The stream-json wire: one JSON object a line, both ways.

stdin is read by a daemon thread, so a blocking read never holds up the
event loop or the exit, and works whatever stdin is (a pipe, a file, a
terminal). Each line becomes one `Incoming`: a parsed object, or the reason
it could not be one (the driver reports it on stderr and reads on). stdout
lines go out through `headless_output.json_line`, like `-p`'s stream-json,
to an `output_streams.Stdout`: a client that closes it ends the session.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from agentcli.frontends.headless.output import json_line
from agentcli.frontends.output_streams import Stdout


@dataclass(frozen=True, slots=True)
class Incoming:
    """One line of stdin: `message` when it is a JSON object, else `problem`."""

    message: dict[str, Any] | None = None
    problem: str | None = None

    @property
    def kind(self) -> str:
        return str(self.message.get("type", "")) if self.message is not None else ""


def parse_line(line: bytes) -> Incoming | None:
    """A line as the protocol sees it; None for a blank line (ignored)."""
    text = line.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return Incoming(problem=f"a line of stdin is not JSON ({exc.msg}): {_clip(text)}")
    if not isinstance(value, dict):
        return Incoming(problem=f"a line of stdin is not a JSON object: {_clip(text)}")
    return Incoming(message=value)


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class StdinLines:
    """The lines of stdin as they arrive; `None` once it ends.

    The thread reads the file descriptor itself, not `sys.stdin.buffer`: a read
    still blocked there when the process exits (the client closed stdout but not
    stdin) would hold the buffer's lock, which the interpreter's shutdown waits on.
    """

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._queue: asyncio.Queue[Incoming | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        threading.Thread(target=self._read, name="sdk-stdin", daemon=True).start()

    def _read(self) -> None:
        try:
            for line in _lines(self._fd):
                incoming = parse_line(line)
                if incoming is not None:
                    self._loop.call_soon_threadsafe(self._queue.put_nowait, incoming)
        except (OSError, ValueError):  # stdin closed under us: the same as its end
            pass
        finally:
            try:
                self._loop.call_soon_threadsafe(self._queue.put_nowait, None)
            except RuntimeError:  # the loop already closed: nobody is reading
                pass

    async def next(self) -> Incoming | None:
        return await self._queue.get()


def _lines(fd: int) -> Iterator[bytes]:
    """Each line read from `fd` (the last one even without its newline), until the end."""
    partial: list[bytes] = []  # the pieces of a line longer than one read
    while chunk := os.read(fd, 65536):
        *complete, rest = chunk.split(b"\n")
        if complete:
            yield b"".join([*partial, complete[0]])
            yield from complete[1:]
            partial = []
        if rest:
            partial.append(rest)
    if partial:
        yield b"".join(partial)


class Sender:
    """Writes JSON lines to stdout, each flushed at once (the client waits on them);
    nothing once the client has closed it (`out.gone`)."""

    def __init__(self, out: Stdout) -> None:
        self.out = out

    def __call__(self, obj: dict[str, Any]) -> None:
        self.out.write(json_line(obj))
