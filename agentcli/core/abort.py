"""One abort signal for a whole turn: the model stream and every running tool.

Esc in the UI (or SIGINT headless) calls `abort()`. Waiters are woken through
callbacks rather than polling, so the stream stops at once even while it is
blocked on the network.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class AbortSignal:
    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._callbacks: list[Callable[[], object]] = []
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self, reason: str = "interrupted by user") -> None:
        if self._event.is_set():
            return
        self.reason = reason
        self._event.set()
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_abort(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call `callback` once when aborted (now, if already). Returns an unsubscribe."""
        if self._event.is_set():
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    async def wait(self) -> None:
        await self._event.wait()

    async def sleep(self, seconds: float) -> bool:
        """Sleep, but wake early on abort. Returns True when aborted."""
        if seconds <= 0:
            return self.aborted
        try:
            await asyncio.wait_for(self._event.wait(), timeout=seconds)
        except TimeoutError:
            return False
        return True
