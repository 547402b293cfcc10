"""Start-up work that must not take a core from the keys being typed.

While the app starts or resumes a session, threads build the engine, import the
provider, read and parse the whole transcript and prepare its older items. That
is up to a second of CPU, and on a busy machine (two cores, a terminal, a build
running) the scheduler shares a core between it and the app's loop, so a key typed
meanwhile waits for its echo. Run in `background`'s threads, that work has a lower
CPU priority (nice +10) than the loop and Textual's input and output threads: it
gets every core that is idle, and gives one up at once to the thread that echoes
a key. Measured in bench/long_session_keys_bench.py, resuming 10,000 messages,
key echo p95 during the resume: 34.6 -> 24.3 ms, and 36.5 -> 26.3 ms (same runs).

Only these threads are lowered, and they run only this work: a thread's priority
cannot be raised again without privileges, and what it starts inherits it, so the
shared executor (tools, `asyncio.to_thread`) keeps the normal priority, and so do
the commands a tool runs. The priority is per thread on Linux only; elsewhere the
work runs in the same threads at the normal priority.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

T = TypeVar("T")

BACKGROUND_NICE = 10
WORKERS = 4  # the loader, and what a resume prepares beside it

_executor: ThreadPoolExecutor | None = None
_made = threading.Lock()


def lower_this_threads_priority() -> None:
    """Give the calling thread nice +BACKGROUND_NICE (Linux: `setpriority` on a thread's
    id names that thread; elsewhere it would name a process, so nothing is done)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)
    except OSError:  # not allowed here (a container's policy): the normal priority, then
        pass


def _background_executor() -> ThreadPoolExecutor:
    global _executor
    with _made:
        if _executor is None:
            _executor = ThreadPoolExecutor(
                WORKERS, "agentcli-background", initializer=lower_this_threads_priority
            )
        return _executor


async def in_background(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`work(*args, **kwargs)` in a background thread, awaited (its context variables
    as the caller's, as with `asyncio.to_thread`)."""
    loop = asyncio.get_running_loop()
    call = partial(contextvars.copy_context().run, work, *args, **kwargs)
    return await loop.run_in_executor(_background_executor(), call)
