"""A background task's output: a private file of bounded size that keeps the tail.

A dev server may log for hours, so the file cannot grow forever. Past
`max_bytes` the oldest part goes (the newest lines are what matter: the last
request, the last error) and the file's first line says how much went, so a
person or the model reading it with Read sees that something is missing.

Offsets are logical: byte N is the N-th byte the command ever wrote, whatever
was dropped since. A reader (`OutputCursor`) keeps its own offset and decoder,
so the model's "new output since the last read" and the person's view in
/tasks never disturb each other. The file is created 0600 in a 0700 folder:
command output may hold secrets.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from pathlib import Path

from agentcli.config.private_files import open_private

# What one task's file may hold: a day of a chatty dev server's log would be more.
MAX_OUTPUT_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class OutputRead:
    """What a reader got: the text, and how many bytes it missed because they were
    dropped (the file kept only the tail) before it read them."""

    text: str
    missed_bytes: int = 0


class BoundedOutput:
    """The file of one task's output, written as the output comes."""

    def __init__(self, path: Path, max_bytes: int = MAX_OUTPUT_BYTES) -> None:
        self.path = path
        self.max_bytes = max(max_bytes, 2)
        self._fd: int | None = open_private(path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
        self.written = 0  # bytes the command ever wrote
        self.dropped = 0  # of those, how many the file no longer holds (the oldest)
        self._base = 0  # where in the file the first kept byte lies (after the note)
        self.complete = False

    def write(self, data: bytes) -> None:
        if self._fd is None or self.complete or not data:
            return
        os.pwrite(self._fd, data, self._base + self.written - self.dropped)
        self.written += len(data)
        if self.written - self.dropped > self.max_bytes:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        """Keep the newest half of the limit, below a line saying what went."""
        assert self._fd is not None
        kept_bytes = self.max_bytes // 2
        held = self.written - self.dropped
        kept = os.pread(self._fd, kept_bytes, self._base + held - kept_bytes)
        self.dropped = self.written - len(kept)
        note = dropped_note(self.dropped, self.max_bytes).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, note + kept, 0)
        self._base = len(note)

    def read(self, start: int, limit: int) -> tuple[bytes, int, int]:
        """Up to `limit` bytes from logical offset `start`: (data, its start, missed),
        `missed` being the bytes before it that were dropped unread."""
        if self._fd is None:
            return b"", start, 0
        missed = max(self.dropped - start, 0)
        begin = max(start, self.dropped)
        size = max(min(limit, self.written - begin), 0)
        data = os.pread(self._fd, size, self._base + begin - self.dropped) if size else b""
        return data, begin, missed

    def finish(self) -> None:
        """The output is complete: no more writes; it can still be read."""
        self.complete = True

    def remove(self) -> None:
        """Close and delete the file (the task is forgotten)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self.path.unlink(missing_ok=True)


def dropped_note(dropped: int, limit: int) -> str:
    return (
        f"[agentcli: the first {dropped} bytes of this output were dropped to keep the "
        f"file under {limit} bytes; what follows is the rest]\n"
    )


class OutputCursor:
    """One reader's place in a task's output: each `read_new()` returns what came
    since the last, decoded as UTF-8 (a character cut between two reads waits for
    its last bytes)."""

    def __init__(self, output: BoundedOutput, start: int = 0) -> None:
        self._output = output
        self.offset = start
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def read_new(self, final: bool = False) -> OutputRead:
        """Everything new (`final`: the output is complete, flush a cut character)."""
        out = self._output
        data, begin, missed = out.read(self.offset, out.written - self.offset)
        if missed:
            self._decoder.reset()
        self.offset = begin + len(data)
        return OutputRead(self._decoder.decode(data, final=final), missed)


def tail_text(output: BoundedOutput, max_bytes: int) -> OutputRead:
    """The last `max_bytes` of the output (for a look at it), and how much comes
    before that."""
    start = max(output.written - max_bytes, 0)
    data, begin, _missed = output.read(start, max_bytes)
    return OutputRead(data.decode("utf-8", errors="replace"), begin)
