"""stdout and stderr when their reader may go away: `agentcli -p ... | head -1`.

A closed stdout ends a run the way it ends other Unix tools: quietly (no
traceback), with the status a shell gives a process killed by SIGPIPE (141),
and promptly. The run is told at once (`Stdout.on_gone`: the front end aborts
its turn, so no further model request is made and running commands are
killed), noticed by the first write that fails or, when stdout is a pipe, by
the pipe itself: its reader's end closing wakes the event loop
(`Stdout.watch`), so a run that has nothing to write yet stops too. From then
on fd 1 points at /dev/null, so no later write, nor the interpreter's last
flush, can fail.

stderr is for messages to a person: when it is closed (`2>&-`: no stream at
all) or its reader is gone, those messages are dropped and the run goes on.
Nothing meant for stderr ever falls through to stdout.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import stat
import sys
from collections.abc import Callable
from typing import TextIO

EXIT_STDOUT_GONE = 128 + signal.SIGPIPE  # 141, as a shell reports `yes | head -1`'s `yes`


class Stdout:
    """The process's stdout (or `stream`), each write flushed at once.

    `write` never raises: once the reader is gone it drops the text, and the
    callbacks given to `on_gone` have run (once). fd 1 closed when the process
    started (sys.stdout is None) counts as gone from the start.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = sys.stdout if stream is None else stream
        self._fd = _fileno(self._stream)
        self.gone = self._stream is None
        self._callbacks: list[Callable[[], None]] = []
        self._unwatch: Callable[[], None] = lambda: None

    def write(self, text: str) -> None:
        stream = self._stream
        if self.gone or stream is None:
            return
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError):  # EPIPE, EIO (a terminal hung up), a closed file
            self._lost()

    def flush(self) -> None:
        self.write("")

    def isatty(self) -> bool:
        try:
            return bool(self._stream is not None and self._stream.isatty())
        except (AttributeError, ValueError, OSError):
            return False

    def on_gone(self, callback: Callable[[], None]) -> None:
        """Call `callback` when the reader goes (at once if it already has)."""
        if self.gone:
            callback()
        else:
            self._callbacks.append(callback)

    def watch(self, loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
        """When stdout is a pipe, notice its reader closing even while nothing is written.
        Returns the undo (also done when the reader goes); nothing for a terminal or a file."""
        fd = self._fd
        if fd != 1 or self.gone or not _is_pipe(fd):
            return lambda: None

        def check() -> None:
            unwatch()  # one wake-up is enough: a write end is never readable otherwise
            if _reader_closed(fd):
                self._lost()

        def unwatch() -> None:
            self._unwatch = lambda: None
            loop.remove_reader(fd)

        try:
            # epoll reports an error on a pipe's write end once the reader has closed it,
            # and the selector hands that to the fd's reader callback.
            loop.add_reader(fd, check)
        except (OSError, ValueError, NotImplementedError):
            return lambda: None
        self._unwatch = unwatch
        return lambda: self._unwatch()

    def _lost(self) -> None:
        if self.gone:
            return
        self.gone = True
        self._unwatch()
        if self._fd == 1:
            point_stdout_at_devnull()
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()


def say(line: str) -> None:
    """One line on stderr, for a person; dropped when stderr is closed or gone."""
    stream = sys.stderr
    if stream is None:  # fd 2 was closed at start: print(file=None) would use stdout
        return
    try:
        stream.write(line + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def _fileno(stream: TextIO | None) -> int | None:
    try:
        return stream.fileno() if stream is not None else None
    except (AttributeError, OSError, ValueError):  # StringIO, a closed file
        return None


def _is_pipe(fd: int) -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


def _reader_closed(fd: int) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def point_stdout_at_devnull() -> None:
    """fd 1 on /dev/null: what is still buffered, and the interpreter's final flush,
    go nowhere instead of failing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, 1)
    except OSError:
        pass
    finally:
        os.close(devnull)
