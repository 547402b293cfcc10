"""close() during a stdio server's start-up ends the process, wherever the cancel lands.

The SDK's stdio transport ends its server (stdin closed, then SIGTERM, then
SIGKILL to the process group) only once it holds the process. A close() whose
cancellation reached the spawn after the process existed but before the spawn
returned orphaned it; on a busy machine asyncio spends several loop turns
there connecting the pipes. `anyio.open_process` is wrapped here to take those
turns on purpose, so the cancellation lands exactly in that gap.
"""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from tests.mcp.support import stdio, tagged_processes

SPAWN_TURNS = 20  # loop turns the wrapped spawn takes to return once the process runs


class SlowSpawn:
    """`anyio.open_process` that returns some loop turns after the process started."""

    def __init__(self) -> None:
        self.spawned = asyncio.Event()
        self.pids: list[int] = []
        self._open_process = anyio.open_process

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        process = await self._open_process(*args, **kwargs)
        self.pids.append(process.pid)
        self.spawned.set()
        for _ in range(SPAWN_TURNS):
            await anyio.lowlevel.checkpoint()
        return process


@pytest.fixture
def slow_spawn(monkeypatch: pytest.MonkeyPatch) -> SlowSpawn:
    spawn = SlowSpawn()
    monkeypatch.setattr(anyio, "open_process", spawn)
    return spawn


@pytest.fixture
def tag() -> Iterator[str]:
    """A tag for the server's command line; whatever still runs with it is killed after."""
    tag = uuid.uuid4().hex
    yield tag
    for pid in tagged_processes(tag):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize(
    "deafness",
    [[], ["--delay", "60", "--ignore-sigterm"]],
    ids=["a server that exits at EOF", "a server deaf to EOF and SIGTERM"],
)
async def test_close_while_the_spawn_returns_ends_and_reaps_the_server(
    mcp_manager, slow_spawn, tag, deafness
):
    manager = mcp_manager(stdio("starting", *deafness, "--tag", tag))
    await manager.start()
    await slow_spawn.spawned.wait()

    await manager.close()

    assert tagged_processes(tag) == []
    assert not any(Path(f"/proc/{pid}").exists() for pid in slow_spawn.pids)  # reaped
