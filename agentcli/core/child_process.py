"""Run a short command with bytes on its stdin and get its output back, bounded in time
and size, whatever the command leaves behind.

Why not `asyncio.create_subprocess_*` with `communicate()` and `wait()`: on Python 3.11
`Process.wait()` returns only once the child has exited *and* every pipe to it has
closed. Two ordinary things keep a pipe open forever:
- a reader that stops reading early (output past a bound): asyncio pauses the pipe
  once its buffer is full, so it never sees the end of it;
- a grandchild in a session of its own (`setsid daemon &`) that inherited stdout: killing
  the command's process group does not reach it.
Either way a `wait()` after the kill never returns, past any timeout, and a hook or a
status line hangs its turn or the app's exit. Here the exit and the pipes are separate
events (a `SubprocessProtocol`), the output is kept up to a bound as it arrives, and
every wait has an end:
- the run is over when the command has exited and its output has ended, or when it has
  exited and `EXIT_GRACE_S` more have passed (a child holding the pipe then gets
  nothing more read from it), or at the time limit;
- at the time limit, or when the output passes its bound with `stop_at_limit`, the
  command's whole process group is killed;
- our ends of the pipes are then closed, so nothing anyone awaits depends on what the
  command left running.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

# What becomes of the command's stderr: kept like stdout, dropped, or mixed into stdout.
Stderr = Literal["keep", "drop", "into_stdout"]

# After the command exits, how long its output may still take to end: what it wrote is
# already in the pipe, so this is waited only when something else still holds the pipe.
EXIT_GRACE_S = 1.0
# After SIGKILL, how long to wait for the exit to be reported before giving up on it.
KILL_WAIT_S = 5.0

_STDOUT, _STDERR = 1, 2


@dataclass(frozen=True, slots=True)
class ChildRun:
    """What a finished run left: its exit status and the start of its output."""

    returncode: int | None  # None: it was still running when it was stopped
    stdout: bytes
    stderr: bytes
    timed_out: bool = False  # stopped at its time limit (or by `stop`)
    cut: bool = False  # stdout went past the bound (with `stop_at_limit`, it was stopped there)


class _Collector(asyncio.SubprocessProtocol):
    """Keeps the output up to `limit` bytes per stream, and tells the exit and the
    output's end apart."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        limit: int,
        streams: set[int],
        on_stdout: Callable[[bytes], None] | None,
    ) -> None:
        self.limit = limit
        self.on_stdout = on_stdout
        self.output = {fd: bytearray() for fd in streams}
        self._open = set(streams)
        self.exited: asyncio.Future[None] = loop.create_future()
        self.output_ended: asyncio.Future[None] = loop.create_future()
        self.stdout_full: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        kept = self.output.get(fd)
        if kept is None:
            return
        if fd == _STDOUT and self.on_stdout is not None:
            self.on_stdout(data)
        room = self.limit - len(kept)
        if room > 0:
            kept += data[:room]
        if fd == _STDOUT and len(data) > room:
            _settle(self.stdout_full)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self._open.discard(fd)
        if not self._open:
            _settle(self.output_ended)

    def process_exited(self) -> None:
        _settle(self.exited)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def run_child(
    command: str | Sequence[str],
    *,
    stdin: bytes | None,
    cwd: Path | None,
    env: Mapping[str, str] | None,
    timeout_s: float | None,
    limit: int,
    stderr: Stderr = "keep",
    stop_at_limit: bool = False,
    own_group: bool = True,
    on_stdout: Callable[[bytes], None] | None = None,
    stop: asyncio.Event | None = None,
) -> ChildRun:
    """Run `command` (a shell command line, or an argv run without a shell).

    `stdin`: written to its stdin, which is then closed (None: no stdin at all).
    `timeout_s`: when it is stopped (None: never, only by `stop`).
    `limit`: the bytes of stdout (and of stderr, when kept) kept; past it the rest
    is read and dropped, or, with `stop_at_limit`, the command is stopped.
    `own_group`: it leads a process group of its own, and stopping it kills the group.
    `on_stdout`: told of every piece of stdout as it arrives, kept or not.
    `stop`: set, it stops the command as the time limit would.
    Raises OSError when it cannot be started. Cancelling kills it and returns at once.
    """
    loop = asyncio.get_running_loop()
    streams = {_STDOUT, _STDERR} if stderr == "keep" else {_STDOUT}
    collector = _Collector(loop, limit, streams, on_stdout)
    stdin_pipe = subprocess.PIPE if stdin is not None else subprocess.DEVNULL
    stderr_pipe = {
        "keep": subprocess.PIPE,
        "drop": subprocess.DEVNULL,
        "into_stdout": subprocess.STDOUT,
    }[stderr]
    # A command line goes through the shell; an argv is run as it is.
    spawn = loop.subprocess_shell if isinstance(command, str) else loop.subprocess_exec
    words = (command,) if isinstance(command, str) else tuple(command)
    transport, _ = await spawn(
        lambda: collector,
        *words,
        stdin=stdin_pipe,
        stdout=subprocess.PIPE,
        stderr=stderr_pipe,
        cwd=cwd,
        env=env,
        start_new_session=own_group,
    )
    timed_out = False
    try:
        if stdin is not None:
            writer = transport.get_pipe_transport(0)
            assert isinstance(writer, asyncio.WriteTransport)
            writer.write(stdin)  # buffered by the loop: a command that never reads is fine
            writer.close()
        timed_out = not await _until_over(collector, timeout_s, stop_at_limit, stop)
        if timed_out or not collector.exited.done():
            _kill(transport.get_pid(), own_group)
            await asyncio.wait({collector.exited}, timeout=KILL_WAIT_S)
    except asyncio.CancelledError:
        _kill(transport.get_pid(), own_group)
        raise
    finally:
        _let_go(transport, collector)
    return ChildRun(
        returncode=None if timed_out else transport.get_returncode(),
        stdout=bytes(collector.output[_STDOUT]),
        stderr=bytes(collector.output.get(_STDERR, b"")),
        timed_out=timed_out,
        cut=collector.stdout_full.done(),
    )


async def _until_over(
    collector: _Collector,
    timeout_s: float | None,
    stop_at_limit: bool,
    stop: asyncio.Event | None,
) -> bool:
    """Wait for the run to be over (see the module's doc); False when it is to be
    stopped (the time limit, or `stop`)."""
    loop = asyncio.get_running_loop()
    deadline = None if timeout_s is None else loop.time() + timeout_s
    ends: set[asyncio.Future[Any]] = {collector.exited}
    if stop_at_limit:
        ends.add(collector.stdout_full)
    stopped = asyncio.ensure_future(stop.wait()) if stop is not None else None
    if stopped is not None:
        ends.add(stopped)
    try:
        await asyncio.wait(ends, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if stopped is not None:
            stopped.cancel()
    if stop_at_limit and collector.stdout_full.done():
        return True
    if not collector.exited.done() or (stop is not None and stop.is_set()):
        return False
    grace = EXIT_GRACE_S if deadline is None else min(EXIT_GRACE_S, deadline - loop.time())
    await asyncio.wait({collector.output_ended}, timeout=max(grace, 0.0))
    return True


def _kill(pid: int, group: bool) -> None:
    try:
        if group:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _let_go(transport: asyncio.SubprocessTransport, collector: _Collector) -> None:
    """Close our ends of the pipes now, and the transport once the exit is known.

    Closing the transport before the exit is reported would reap the child behind the
    child watcher's back (it polls and kills), and the watcher would then log an
    unknown child, so that close waits for the exit.
    """
    for fd in (0, _STDOUT, _STDERR):
        pipe = transport.get_pipe_transport(fd)
        if pipe is not None:
            pipe.close()
    if collector.exited.done():
        transport.close()
    else:
        collector.exited.add_done_callback(lambda _exit: transport.close())
