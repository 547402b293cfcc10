"""A connection's start-up scope, whose cancellation waits out a stdio spawn.

Cancelling the start-up (close() or the start-up timeout) unwinds the SDK's
stdio transport, whose shutdown ends the server: stdin closed, then SIGTERM
and SIGKILL to its process group. That shutdown only covers a process the
SDK holds. A cancellation delivered inside the spawn, once the process runs
but before the spawn returns (asyncio connects the pipes meanwhile), would
leave the process to nobody. So a cancel asked for during `spawning()` is
delivered as it ends, when the SDK owns the process.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import anyio


class Startup:
    def __init__(self) -> None:
        self.scope = anyio.CancelScope()
        self._spawning = False
        self._deferred = False

    def cancel(self) -> None:
        """Stop starting: now, or as soon as a spawn under way has returned."""
        if self._spawning:
            self._deferred = True
        else:
            self.scope.cancel()

    @contextmanager
    def spawning(self) -> Iterator[None]:
        """Around entering a stdio transport: the spawn is never cancelled midway."""
        self._spawning = True
        try:
            yield
        finally:
            self._spawning = False
            if self._deferred:
                self.scope.cancel()
