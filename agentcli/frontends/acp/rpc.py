"""JSON-RPC 2.0 over newline-delimited JSON: the wire under the Agent Client Protocol.

Written here rather than taken from the `agent-client-protocol` package: that
package builds its whole schema (thousands of pydantic models) on import,
which would add about half a second to every start of `agentcli --acp`. The
wire itself is small: one JSON object per line each way; requests (with an
id) get exactly one response, notifications none; either side may send
requests. Each incoming request runs in its own task, so a long
`session/prompt` does not hold up the `session/cancel` that stops it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError

_log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# Lines longer than this are refused (a prompt with an embedded file can be big).
MAX_LINE_BYTES = 50 * 1024 * 1024

Handler = Callable[[Any], Awaitable[Any]]


class RpcError(Exception):
    """An error response: raised by a handler (sent to the peer), or by `request()`
    (the peer's answer)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class Connection:
    """One JSON-RPC peer on a pair of streams. `routes()` maps method names to
    handlers taking the params; a handler's return value is the result (RpcError
    or a pydantic ValidationError become error responses)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._requests: dict[str, Handler] = {}
        self._notifications: dict[str, Handler] = {}
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._write_lock = asyncio.Lock()

    def routes(self, requests: dict[str, Handler], notifications: dict[str, Handler]) -> None:
        """The methods this side answers (requests) and hears (notifications)."""
        self._requests = dict(requests)
        self._notifications = dict(notifications)

    async def serve(self) -> None:
        """Read and dispatch until the peer closes its end; then cancel what runs."""
        try:
            while True:
                try:
                    line = await self._reader.readline()
                except ValueError:  # longer than MAX_LINE_BYTES: dropped, the rest goes on
                    too_long = RpcError(INVALID_REQUEST, "message longer than the limit")
                    self._spawn(self._send_error(None, too_long))
                    continue
                if not line:
                    break
                if line.strip():
                    self._dispatch(line)
        finally:
            for future in self._pending.values():
                future.cancel()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def request(self, method: str, params: Any) -> Any:
        """Send a request and wait for its result; RpcError when the peer answers with
        an error. Cancelling the wait leaves the late answer ignored."""
        request_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._send(
                {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            )
            return await future
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: Any) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    # -- incoming ------------------------------------------------------------------

    def _dispatch(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            self._spawn(self._send_error(None, RpcError(PARSE_ERROR, "Parse error")))
            return
        if not isinstance(message, dict):
            self._spawn(self._send_error(None, RpcError(INVALID_REQUEST, "Invalid request")))
            return
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                self._spawn(self._answer(message["id"], method, message.get("params")))
            else:
                self._spawn(self._notified(method, message.get("params")))
        elif "id" in message:
            self._settle(message)
        else:
            self._spawn(self._send_error(None, RpcError(INVALID_REQUEST, "Invalid request")))

    async def _answer(self, request_id: Any, method: str, params: Any) -> None:
        handler = self._requests.get(method)
        try:
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}", {"method": method})
            result = await handler(params)
        except RpcError as error:
            await self._send_error(request_id, error)
            return
        except ValidationError as error:
            details = error.errors(include_url=False, include_context=False, include_input=False)
            await self._send_error(request_id, RpcError(INVALID_PARAMS, "Invalid params", details))
            return
        except Exception as error:
            _log.exception("ACP request %s failed", method)
            await self._send_error(request_id, RpcError(INTERNAL_ERROR, str(error) or "error"))
            return
        await self._send({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def _notified(self, method: str, params: Any) -> None:
        handler = self._notifications.get(method)
        if handler is None:
            return  # unknown notifications are ignored, as JSON-RPC asks
        try:
            await handler(params)
        except Exception:
            _log.exception("ACP notification %s failed", method)

    def _settle(self, message: dict[str, Any]) -> None:
        future = self._pending.get(message["id"]) if isinstance(message["id"], int) else None
        if future is None or future.done():
            return
        error = message.get("error")
        if isinstance(error, dict):
            code = error.get("code")
            text = error.get("message")
            future.set_exception(
                RpcError(
                    code if isinstance(code, int) else INTERNAL_ERROR,
                    text if isinstance(text, str) else "error",
                    error.get("data"),
                )
            )
        else:
            future.set_result(message.get("result"))

    # -- outgoing ------------------------------------------------------------------

    async def _send_error(self, request_id: Any, error: RpcError) -> None:
        await self._send({"jsonrpc": "2.0", "id": request_id, "error": error.to_json()})

    async def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        async with self._write_lock:
            self._writer.write(data.encode("utf-8"))
            await self._writer.drain()

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


async def stdio_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """This process's stdin and stdout as asyncio streams."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer
