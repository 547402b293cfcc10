"""The SDK's transports for one configured server, each watched for its end.

A stdio server is started in the project folder with agentcli's environment
(credentials left out, as for Bash: config/credentials.py), the settings'
`env`, and the server's own `env` over both; its stderr goes to a
`StderrTail`; its spawn runs under the start-up's `spawning()` (startup.py),
so a cancellation never orphans the process. Remote servers get their
`headers` on every request.

Every transport's read stream is wrapped so that its end (the process
exited, the connection dropped) sets `lost`: the SDK fails the calls in
flight, and the connection marks the server failed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
import httpx2
from mcp.client import Transport
from mcp.client._transport import ReadStream, TransportStreams  # the Transport's own types
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from agentcli.config.credentials import child_env
from agentcli.mcp.sdk_transport import SdkMessages, sdk_transport
from agentcli.mcp.startup import Startup
from agentcli.mcp.stderr_tail import StderrTail

if TYPE_CHECKING:
    from agentcli.mcp.config.specs import ServerSpec

HTTP_TIMEOUT_S = 30.0  # connecting, writing, waiting for a pooled connection
STREAM_READ_TIMEOUT_S = 300.0  # silence on a response stream the server holds open

Item = SessionMessage | Exception


async def open_transport(
    name: str,
    spec: ServerSpec,
    stack: AsyncExitStack,
    *,
    cwd: Path,
    env: Mapping[str, str],
    lost: anyio.Event,
    stderr: StderrTail | None,
    startup: Startup,
    sdk_messages: SdkMessages | None = None,
) -> Transport:
    """The transport for `spec` (not yet entered); what it needs is closed with `stack`.
    `sdk_messages`: how an SDK server's messages reach the program (sdk_transport.py)."""
    if spec.type == "sdk":
        return sdk_transport(name, sdk_messages, lost)
    if spec.type == "stdio":
        assert stderr is not None
        params = StdioServerParameters(
            command=spec.command,
            args=list(spec.args),
            env={**child_env(env), **spec.env},
            cwd=cwd,
        )
        return _watched_stdio(stdio_client(params, errlog=stderr.errlog), lost, stderr, startup)
    headers = dict(spec.headers)
    if spec.type == "sse":
        return _watched(
            sse_client(
                spec.url,
                headers=headers,
                timeout=HTTP_TIMEOUT_S,
                sse_read_timeout=STREAM_READ_TIMEOUT_S,
            ),
            lost,
        )
    timeout = httpx2.Timeout(HTTP_TIMEOUT_S, read=STREAM_READ_TIMEOUT_S)
    http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=timeout))
    return _watched(streamable_http_client(spec.url, http_client=http), lost)


@asynccontextmanager
async def _watched(transport: Transport, lost: anyio.Event) -> AsyncIterator[TransportStreams]:
    async with transport as (read, write):
        yield _WatchedRead(read, lost), write


@asynccontextmanager
async def _watched_stdio(
    transport: Transport, lost: anyio.Event, stderr: StderrTail, startup: Startup
) -> AsyncIterator[TransportStreams]:
    async with AsyncExitStack() as stack:
        with startup.spawning():  # from here on the SDK's shutdown ends the process
            read, write = await stack.enter_async_context(transport)
        stderr.spawned()  # the process runs: its stderr's EOF is now its own
        yield _WatchedRead(read, lost), write


class _WatchedRead:
    """A transport's read stream that sets `lost` when it ends."""

    def __init__(self, inner: ReadStream[Item], lost: anyio.Event) -> None:
        self._inner = inner
        self._lost = lost

    def __getattr__(self, name: str) -> Any:  # `last_context`, read by the dispatcher
        return getattr(self._inner, name)

    async def receive(self) -> Item:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._lost.set()
            raise

    def __aiter__(self) -> _WatchedRead:
        return self

    async def __anext__(self) -> Item:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WatchedRead:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
