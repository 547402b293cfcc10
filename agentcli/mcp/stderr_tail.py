"""The last lines a stdio server wrote to stderr, to say why it failed.

A server's stderr must not reach the person's terminal (it would draw over
the app) and must not fill memory or a disk over a long session. It goes to
a pipe read as it arrives on the event loop, keeping only the last
`KEEP_BYTES`; `tail()` drains what is still in the pipe first, so a server
that wrote its last words and died is heard in full.
"""

from __future__ import annotations

import asyncio
import os
from typing import TextIO

KEEP_BYTES = 8192
TAIL_LINES = 20
_READ_SIZE = 65536


class StderrTail:
    """A pipe for a child's stderr (`errlog`), read on the running loop."""

    def __init__(self) -> None:
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        self._read_fd: int | None = read_fd
        self.errlog: TextIO = os.fdopen(write_fd, "w")
        self._kept = bytearray()
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(read_fd, self._drain)

    def spawned(self) -> None:
        """The child has its copy of the write end: close ours, so EOF comes when it exits."""
        if not self.errlog.closed:
            self.errlog.close()

    def tail(self, lines: int = TAIL_LINES) -> str:
        """The last `lines` lines written so far, decoded."""
        self._drain()
        text = self._kept.decode("utf-8", "replace")
        return "\n".join(text.strip().splitlines()[-lines:])

    def close(self) -> None:
        self.spawned()
        if self._read_fd is not None:
            self._drain()
            self._loop.remove_reader(self._read_fd)
            os.close(self._read_fd)
            self._read_fd = None

    def _drain(self) -> None:
        fd = self._read_fd
        while fd is not None:
            try:
                chunk = os.read(fd, _READ_SIZE)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                chunk = b""
            if not chunk:  # every writer is gone
                self._loop.remove_reader(fd)
                return
            self._kept += chunk
            del self._kept[:-KEEP_BYTES]
