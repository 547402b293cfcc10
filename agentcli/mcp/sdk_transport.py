"""The transport to an in-process server of the Agent SDK program (`"type": "sdk"`).

Claude Code talks to a server made with the SDK's `create_sdk_mcp_server` over
the control protocol: each JSON-RPC message the client writes goes to the
program as an `mcp_message` control request (`server_name`, `message`), and the
answer's `mcp_response` is the server's reply. This transport is that pair of
streams for the MCP client: what the client writes is sent by `SdkMessages`
(frontends/sdk/mcp_bridge.py supplies it; the MCP layer knows nothing of the
protocol), each message in its own task so a slow tool call holds up no other
message; a reply that is a JSON-RPC response comes back on the read stream;
the program's acknowledgement of a notification is dropped.

Without a program to carry the messages (`-p`, the app) the server cannot be
reached: it fails at start-up with a message saying so. When the program can
no longer answer (its stdin ended), the read stream ends and the server is
marked failed, as a stdio server whose process exited.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage

# Sends one JSON-RPC message to the program's server `name`; returns its reply (None
# for none). Raises when the program cannot answer any more.
SdkMessages = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any] | None]]

NO_PROGRAM = (
    'an SDK server ("type": "sdk") lives in the Agent SDK program that started agentcli, '
    "and this session was not started by one"
)


class SdkUnreachable(Exception):
    """The program cannot carry the server's messages (none started agentcli, or it left)."""


@asynccontextmanager
async def sdk_transport(
    name: str, send: SdkMessages | None, lost: anyio.Event
) -> AsyncIterator[TransportStreams]:
    """The streams of server `name` in the program; `lost` is set once it is gone."""
    if send is None:
        raise SdkUnreachable(NO_PROGRAM)
    to_client, read = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    write, from_client = anyio.create_memory_object_stream[SessionMessage](64)

    async def carry(message: SessionMessage) -> None:
        raw = message.message.model_dump(by_alias=True, mode="json", exclude_none=True)
        try:
            reply = await send(name, raw)
        except Exception:  # the program is gone, or cannot carry the request
            lost.set()
            await to_client.aclose()
            return
        if not _is_response(raw, reply):
            return
        try:
            parsed = mcp.types.jsonrpc_message_adapter.validate_python(reply, by_name=False)
        except ValueError:
            parsed = _error_reply(raw.get("id"), "the SDK program's reply is not JSON-RPC")
        try:
            await to_client.send(SessionMessage(parsed))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the client has closed: nobody waits for this reply

    async def pump() -> None:
        async with anyio.create_task_group() as group:
            async for message in from_client:
                group.start_soon(carry, message)

    async with anyio.create_task_group() as group, to_client, read, write, from_client:
        group.start_soon(pump)
        try:
            yield read, write
        finally:
            group.cancel_scope.cancel()


def _is_response(sent: dict[str, Any], reply: dict[str, Any] | None) -> bool:
    """Whether `reply` answers the request `sent` (a notification's acknowledgement does
    not: the program answers each `mcp_message`, a notification too)."""
    return (
        "method" in sent
        and "id" in sent
        and isinstance(reply, dict)
        and ("result" in reply or "error" in reply)
    )


def _error_reply(request_id: Any, message: str) -> Any:
    return mcp.types.jsonrpc_message_adapter.validate_python(
        {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": message}},
        by_name=False,
    )
