"""Collecting a command's output within a fixed memory budget.

A command may print gigabytes (`yes`, a runaway log). The model only ever sees
`max_chars` of it, so that is all we keep in memory: everything while the
output is small; past the limit, the head, a ring buffer for the tail, and a
file in the scratch folder that receives the whole stream, so the model can
Read what was cut out of the middle. The file is private (0600).
"""

from __future__ import annotations

import codecs
import os
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from agentcli.config.private_files import open_private

MAX_OUTPUT_CHARS = 30_000
# The tail gets the larger share: test summaries, the last error, the final
# status line live at the end; the head still shows how things started.
HEAD_SHARE = 0.4
# Cut at a newline when one lies this close to the cut (as a share of the part).
_LINE_SNAP = 0.2


@dataclass(frozen=True, slots=True)
class RenderedOutput:
    """The output as the model sees it, and what was left out."""

    text: str
    total_chars: int
    total_lines: int
    omitted_chars: int = 0
    omitted_lines: int = 0
    full_output_path: Path | None = None

    @property
    def truncated(self) -> bool:
        return self.omitted_chars > 0


class OutputBuffer:
    """Bytes in (as they come from the pipe), bounded text out.

    `spill_dir` is called only when the output outgrows the limit, so a scratch
    folder is created only when a file is needed.
    """

    def __init__(
        self,
        spill_dir: Callable[[], Path],
        max_chars: int = MAX_OUTPUT_CHARS,
        prefix: str = "output",
    ) -> None:
        self._spill_dir = spill_dir
        self._max = max_chars
        self._head_chars = int(max_chars * HEAD_SHARE)
        self._tail_chars = max_chars - self._head_chars
        self._prefix = prefix
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._kept: list[str] = []  # everything, while under the limit
        self._head = ""
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self._file: TextIO | None = None
        self.path: Path | None = None
        self.total_chars = 0
        self.total_lines = 0

    def feed(self, data: bytes) -> str:
        """Take raw bytes; return the newly decoded text (for progress reports)."""
        text = self._decoder.decode(data)
        self._add(text)
        return text

    def finish(self) -> str:
        """Flush a trailing partial character and close the spill file."""
        text = self._decoder.decode(b"", final=True)
        self._add(text)
        if self._file is not None:
            self._file.close()
            self._file = None
        return text

    def _add(self, text: str) -> None:
        if not text:
            return
        self.total_chars += len(text)
        self.total_lines += text.count("\n")
        if self._file is None:
            self._kept.append(text)
            if self.total_chars > self._max:
                self._spill()
            return
        self._file.write(text)
        self._push_tail(text)

    def _spill(self) -> None:
        everything = "".join(self._kept)
        self._kept = []
        folder = self._spill_dir()
        self.path = folder / f"{self._prefix}-{uuid.uuid4().hex[:12]}.txt"
        fd = open_private(
            self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL
        )  # output may hold secrets
        self._file = os.fdopen(fd, "w", encoding="utf-8", errors="replace")
        self._file.write(everything)
        self._head = everything[: self._head_chars]
        self._push_tail(everything[-self._tail_chars :])

    def _push_tail(self, text: str) -> None:
        self._tail.append(text)
        self._tail_len += len(text)
        while self._tail_len - len(self._tail[0]) >= self._tail_chars:
            self._tail_len -= len(self._tail.popleft())

    def render(self) -> RenderedOutput:
        if self.path is None:
            return RenderedOutput("".join(self._kept), self.total_chars, self.total_lines)
        head = self._head
        tail = "".join(self._tail)[-self._tail_chars :]
        cut = head.rfind("\n")
        if cut >= len(head) * (1 - _LINE_SNAP):
            head = head[: cut + 1]
        start = tail.find("\n")
        if 0 <= start < len(tail) * _LINE_SNAP:
            tail = tail[start + 1 :]
        omitted = self.total_chars - len(head) - len(tail)
        omitted_lines = self.total_lines - head.count("\n") - tail.count("\n")
        note = (
            f"\n... [{omitted} characters ({omitted_lines} lines) omitted from the middle; "
            f"the full output ({self.total_chars} characters, {self.total_lines} lines) "
            f"is saved in {self.path}] ...\n"
        )
        return RenderedOutput(
            head.rstrip("\n") + note + tail,
            self.total_chars,
            self.total_lines,
            omitted,
            omitted_lines,
            self.path,
        )


class ProgressThrottle:
    """Coalesces output for live progress: at most one report per `interval`.

    A chatty command would otherwise send a report per pipe read. Text waiting
    for the next report is capped; a burst beyond that is replaced by a marker,
    since the live view only ever shows the latest lines anyway.
    """

    def __init__(
        self,
        emit: Callable[[str], None],
        call_later: Callable[[float, Callable[[], None]], object],
        clock: Callable[[], float],
        interval: float = 0.05,
        max_pending: int = 100_000,
    ) -> None:
        self._emit = emit
        self._call_later = call_later
        self._clock = clock
        self._interval = interval
        self._max_pending = max_pending
        self._pending: list[str] = []
        self._pending_len = 0
        self._skipped = 0
        self._last = float("-inf")
        self._handle: object | None = None
        self._scheduled = False

    def push(self, text: str) -> None:
        if not text:
            return
        self._pending.append(text)
        self._pending_len += len(text)
        if self._pending_len > self._max_pending:
            joined = "".join(self._pending)
            self._skipped += len(joined) - self._max_pending
            self._pending = [joined[-self._max_pending :]]
            self._pending_len = self._max_pending
        if self._scheduled:
            return
        delay = self._last + self._interval - self._clock()
        if delay <= 0:
            self.flush()
        else:
            self._scheduled = True
            self._handle = self._call_later(delay, self._scheduled_flush)

    def _scheduled_flush(self) -> None:
        self._scheduled = False
        self._handle = None
        self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        text = "".join(self._pending)
        if self._skipped:
            text = f"[... {self._skipped} characters not shown ...]\n{text}"
        self._pending, self._pending_len, self._skipped = [], 0, 0
        self._last = self._clock()
        self._emit(text)

    def close(self) -> None:
        """Send what is pending and stop any scheduled report."""
        cancel = getattr(self._handle, "cancel", None)
        if cancel is not None:
            cancel()
        self._handle = None
        self._scheduled = False
        self.flush()
