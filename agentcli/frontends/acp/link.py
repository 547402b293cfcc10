"""The way back to the client for one session: its id, requests, and updates."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

Update = dict[str, Any]


class ClientLink:
    """The way back to the client for one session: its id, requests, updates."""

    def __init__(
        self,
        session_id: str,
        request: Callable[[str, dict[str, Any]], Coroutine[Any, Any, Any]],
        notify: Callable[[str, dict[str, Any]], Awaitable[None]],
    ) -> None:
        self.session_id = session_id
        self.request = request
        self._notify = notify

    async def update(self, update: Update) -> None:
        await self._notify("session/update", {"sessionId": self.session_id, "update": update})
