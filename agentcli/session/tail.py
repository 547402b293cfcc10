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
    the rest is read from."""

    data: bytes
    offset: int
    file: BinaryIO

    @property
    def whole(self) -> bool:
        """The tail is the whole file: there is nothing in front of it."""
        return self.offset == 0

    def head(self) -> bytes:
        """The bytes in front of the tail, read once (the file is closed after)."""
        try:
            self.file.seek(0)
            return _read_exactly(self.file, self.offset)
        finally:
            self.file.close()

    def close(self) -> None:
        self.file.close()


def read_tail(file: BinaryIO, lines: int) -> Tail:
    """At least the last `lines` lines of `file` (all of it when it has fewer), read
    from the end. `file` is kept open for `Tail.head`."""
    size = file.seek(0, os.SEEK_END)
    start, data = size, b""
    # Newlines in `data` that end a line other than the file's last one; a line
    # is whole once the newline before it is in `data`.
    while start > 0 and _whole_lines(data, start) < lines:
        step = min(BLOCK, start)
        start -= step
        file.seek(start)
        data = _read_exactly(file, step) + data
    if start > 0:
        cut = data.find(b"\n") + 1  # the first line may have begun before `start`
        start, data = start + cut, data[cut:]
    return Tail(data=data, offset=start, file=file)


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
