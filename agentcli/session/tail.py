"""A transcript read from its end: the newest lines first, the rest once, later.

Resuming a long session must show its newest messages about as fast as a fresh
start, so the app reads the transcript backwards a block at a time until it has
the last `lines` lines (`read_tail`), shows those, and reads the bytes in front
of them once, in the background (`Tail.head`): the file is read once in all,
never twice.

The tail starts just after a newline (or at the start of the file), so it is
made of whole lines; only the file's own last line can be cut (a crash while
writing it), and the parser drops that one as it would in a full read. Bytes
are not decoded here: the parser decodes each part, replacing what is not
UTF-8, and a newline byte never falls inside a multi-byte UTF-8 character, so
cutting at one splits no character.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import BinaryIO

BLOCK = 64 * 1024


@dataclass(frozen=True)
class Tail:
    """The last lines of a file (`data`, starting at byte `offset`) and the open file
    the rest is read from (`read_from`: where the bytes read already begin; those
    between it and `offset` are kept in `read_ahead`, not read again)."""

    data: bytes
    offset: int
    file: BinaryIO
    read_from: int = 0
    read_ahead: bytes = b""

    @property
    def whole(self) -> bool:
        """The tail is the whole file: there is nothing in front of it."""
        return self.offset == 0

    def head(self) -> bytes:
        """The bytes in front of the tail, each read once (the file is closed after)."""
        return bytes(self.whole_file()[: self.offset])

    def whole_file(self) -> bytearray:
        """The file's bytes: those in front of what was read, read now (once), then
        those read already; in one buffer, not copied again (a long transcript is tens
        of megabytes). The file is closed after."""
        front = self.read_from
        buffer = bytearray(front + len(self.read_ahead) + len(self.data))
        try:
            self.file.seek(0)
            got = _read_into(self.file, memoryview(buffer)[:front])
        finally:
            self.file.close()
        if got < front:  # the file got shorter: what there is
            del buffer[got:front]
            front = got
        buffer[front:] = self.read_ahead + self.data
        return buffer

    def close(self) -> None:
        self.file.close()


def read_tail(file: BinaryIO, lines: int, block: int = BLOCK) -> Tail:
    """The last `lines` lines of `file` (all of it when it has fewer), read from the
    end `block` bytes at a time. `file` is kept open for `Tail.head`."""
    size = file.seek(0, os.SEEK_END)
    start, data = size, b""
    while start > 0 and _whole_lines(data, start) <= lines:
        step = min(block, start)
        start -= step
        file.seek(start)
        data = _read_exactly(file, step) + data
    cut = _start_of_last(data, lines)
    return Tail(data[cut:], start + cut, file, read_from=start, read_ahead=data[:cut])


def _start_of_last(data: bytes, lines: int) -> int:
    """Where the last `lines` lines of `data` begin (0: it holds no more than that)."""
    if lines <= 0:
        return len(data)
    end = len(data) - 1 if data.endswith(b"\n") else len(data)  # where the last line ends
    for _ in range(lines):
        end = data.rfind(b"\n", 0, end)
        if end < 0:
            return 0
    return end + 1


def _whole_lines(data: bytes, start: int) -> int:
    """How many whole lines `data` holds (those after its first newline, or all of
    them once `data` reaches the start of the file)."""
    count = data.count(b"\n")
    if start == 0:
        return count + (not data.endswith(b"\n") and bool(data))
    return count - 1 + (not data.endswith(b"\n") and count > 0)


def _read_exactly(file: BinaryIO, size: int) -> bytes:
    parts, left = [], size
    while left > 0:
        part = file.read(left)
        if not part:
            break  # the file got shorter: what there is
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _read_into(file: BinaryIO, view: memoryview) -> int:
    """Fill `view` from `file`; how many bytes were read."""
    done = 0
    while done < len(view):
        got = file.readinto(view[done:])  # type: ignore[attr-defined]
        if not got:
            break
        done += got
    return done
