"""Our own control requests to the SDK client, and the responses it sends back.

`can_use_tool` and `hook_callback` are requests the CLI sends; the client
answers each with a `control_response` carrying the same `request_id`. A
request whose wait is cancelled (the turn was interrupted) is withdrawn with
`control_cancel_request`, so the client stops its callback. Once stdin ends
no answer can come: every open request, and every later one, fails with
`ClientGone`.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Callable
from typing import Any

Send = Callable[[dict[str, Any]], None]


class ControlError(Exception):
    """The client answered our request with an error (its callback raised, ...)."""


class ClientGone(ControlError):
    """stdin ended: the client can answer nothing more."""


class ControlChannel:
    def __init__(self, send: Send) -> None:
        self._send = send
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._numbers = itertools.count(1)
        self._closed = False

    async def request(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send `body` (it has a `subtype`) and wait for the client's response payload."""
        if self._closed:
            raise ClientGone("the SDK client closed its input")
        request_id = f"agentcli_{next(self._numbers)}_{os.urandom(4).hex()}"
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = reply
        self._send({"type": "control_request", "request_id": request_id, "request": body})
        try:
            return await reply
        except asyncio.CancelledError:
            if not self._closed:
                self._send({"type": "control_cancel_request", "request_id": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    def resolve(self, response: dict[str, Any]) -> str | None:
        """Hand a `control_response`'s `response` to the request waiting for it. Returns
        what is wrong with it when it answers nothing we asked."""
        request_id = response.get("request_id")
        reply = self._pending.get(request_id) if isinstance(request_id, str) else None
        if reply is None:
            return f"a control_response answers no open request (request_id {request_id!r})"
        if reply.done():
            return None
        if response.get("subtype") == "error":
            reply.set_exception(ControlError(str(response.get("error") or "no reason given")))
            return None
        payload = response.get("response")
        reply.set_result(payload if isinstance(payload, dict) else {})
        return None

    def close(self) -> None:
        """stdin ended: fail what waits, refuse what comes."""
        self._closed = True
        for reply in self._pending.values():
            if not reply.done():
                reply.set_exception(ClientGone("the SDK client closed its input"))
