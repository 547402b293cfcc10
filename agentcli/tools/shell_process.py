"""A `bash -c` in its own process group: starting it, reading its output, ending it.

Every shell agentcli starts (a foreground Bash call, a background task) leads its
own process group, so stopping it stops everything it started, background jobs
included. The output pipe is ours rather than asyncio's subprocess pipe so that we
decide when to stop reading (a detached job may keep it open forever), and so that
whoever reads it can change (Ctrl+B hands a running command to the background
tasks: `Shell.redirect`).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from agentcli.core.abort import AbortSignal
from agentcli.sandbox import Launch

Outcome = Literal["exited", "timed_out", "interrupted"]
# Polling interval for group members, which are not our children and cannot be awaited.
_POLL_SECONDS = 0.01
_SETTLE_SECONDS = 1.0


class PipeReader(asyncio.Protocol):
    """Hands each chunk read from the output pipe to a callback; notes the end."""

    def __init__(self, on_data: Callable[[bytes], None], eof: asyncio.Future[None]) -> None:
        self._on_data = on_data
        self._eof = eof

    def data_received(self, data: bytes) -> None:
        self._on_data(data)

    def redirect(self, on_data: Callable[[bytes], None]) -> None:
        """From now on, chunks go to `on_data`."""
        self._on_data = on_data

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._eof.done():
            self._eof.set_result(None)


class Shell:
    """One running `bash -c`: its process, its process group and its output pipe.

    The pipe is ours rather than asyncio's subprocess pipe so that we decide
    when to stop reading: a background job may keep it open forever.
    """

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        transport: asyncio.ReadTransport,
        reader: PipeReader,
        eof: asyncio.Future[None],
    ) -> None:
        self.proc = proc
        self._transport = transport
        self._reader = reader
        self._eof = eof

    @property
    def pid(self) -> int:
        """The shell's pid, which is also its process group's id."""
        return self.proc.pid

    def redirect(self, on_data: Callable[[bytes], None]) -> None:
        """Send the output read from now on to `on_data` (Ctrl+B: to a background task)."""
        self._reader.redirect(on_data)

    @property
    def output_ended(self) -> bool:
        """True once every holder of the output pipe has closed it."""
        return self._eof.done()

    async def output_end(self) -> None:
        """Until every holder of the output pipe has closed it."""
        await asyncio.shield(self._eof)

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    @classmethod
    async def spawn(
        cls, launch: Launch, cwd: Path, env: dict[str, str], on_data: Callable[[bytes], None]
    ) -> Shell:
        read_fd, write_fd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                *launch.argv,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                start_new_session=True,
                executable=launch.executable,
                pass_fds=launch.pass_fds,
            )
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)  # the child has its copy; EOF comes when all copies close
        loop = asyncio.get_running_loop()
        eof: asyncio.Future[None] = loop.create_future()
        reader = PipeReader(on_data, eof)
        try:
            transport, _ = await loop.connect_read_pipe(
                lambda: reader, os.fdopen(read_fd, "rb", buffering=0)
            )
        except BaseException:
            signal_group(proc.pid, signal.SIGKILL)
            raise
        return cls(proc, transport, reader, eof)

    async def wait(
        self,
        timeout: float,
        abort: AbortSignal,
        also: asyncio.Future[Any] | None = None,
    ) -> Outcome | Literal["other"]:
        """Wait for the shell to exit, the timeout, or the abort signal; "other" when
        `also` (Ctrl+B's request to move it to the background) came first."""
        loop = asyncio.get_running_loop()
        exited: asyncio.Future[int] = asyncio.ensure_future(self.proc.wait())
        aborted: asyncio.Future[None] = loop.create_future()

        def on_abort() -> None:
            if not aborted.done():
                aborted.set_result(None)

        unsubscribe = abort.on_abort(on_abort)
        try:
            waits: set[asyncio.Future[Any]] = {exited, aborted}
            if also is not None:
                waits.add(also)
            await asyncio.wait(waits, timeout=timeout, return_when="FIRST_COMPLETED")
        finally:
            unsubscribe()
            aborted.cancel()
            if not exited.done():
                exited.cancel()
        if exited.done() and not exited.cancelled():
            return "exited"
        if also is not None and also.done():
            return "other"
        return "interrupted" if aborted.done() and not aborted.cancelled() else "timed_out"

    async def stop(self, grace: float) -> None:
        """Stop the whole group: the shell if it still runs, and whatever it left behind.

        Background jobs (`server &`) die with the command: nothing outlives the
        call that the model could neither see nor stop later.
        """
        await terminate_group(self.proc, grace)

    async def stop_now(self, grace: float) -> None:
        """`stop()` for a cancelled call: if even that is cancelled, SIGKILL at once."""
        try:
            await terminate_group(self.proc, grace)
        finally:
            if group_alive(self.proc.pid):
                signal_group(self.proc.pid, signal.SIGKILL)

    async def drained(self, timeout: float) -> bool:
        """Wait for the end of the output; False if something outside the group holds it."""
        try:
            await asyncio.wait_for(asyncio.shield(self._eof), timeout)
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        self._transport.close()


def shell_exit_code(returncode: int | None) -> int:
    """The code a shell would show: 128+N for a process killed by signal N."""
    if returncode is None:
        return -1
    return 128 - returncode if returncode < 0 else returncode


async def terminate_group(proc: asyncio.subprocess.Process, grace: float) -> None:
    """SIGTERM the group, give it `grace` seconds, then SIGKILL what is left."""
    pgid = proc.pid  # start_new_session: the shell leads its own group
    if proc.returncode is not None and not group_alive(pgid):
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    signal_group(pgid, signal.SIGTERM)
    if proc.returncode is None:
        try:
            await asyncio.wait_for(proc.wait(), grace)
        except TimeoutError:
            pass
    while group_alive(pgid) and loop.time() < deadline:
        await asyncio.sleep(_POLL_SECONDS)
    if proc.returncode is None or group_alive(pgid):
        signal_group(pgid, signal.SIGKILL)
        await proc.wait()
        settle = loop.time() + _SETTLE_SECONDS
        while group_alive(pgid) and loop.time() < settle:
            await asyncio.sleep(_POLL_SECONDS)


def signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def group_alive(pgid: int) -> bool:
    """True while a process of the group still runs.

    Zombies do not count: where PID 1 does not reap orphans (some containers),
    a killed background job stays a zombie forever and `killpg(pgid, 0)` keeps
    succeeding, so /proc is consulted when it is there.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not os.path.isdir("/proc/self"):
        return True
    return _has_live_member(pgid)


def _has_live_member(pgid: int) -> bool:
    with os.scandir("/proc") as entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    data = stat.read()
            except OSError:
                continue
            # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
            fields = data[data.rfind(b")") + 2 :].split()
            if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
                return True
    return False
