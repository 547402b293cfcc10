"""The program's in-process MCP servers (`create_sdk_mcp_server`), reached as Claude Code
reaches them: each JSON-RPC message is an `mcp_message` control request.

The SDK passes such a server in `--mcp-config` as `{"type": "sdk", "name": ...}`
(its instance stays in the program); agentcli's MCP client connects to it like any
other server, over the transport of mcp/sdk_transport.py, whose messages this
sends. The program answers `{"mcp_response": <the server's JSON-RPC reply>}`; an
error response (an unknown server, a callback that raised) is raised, and the
transport fails the server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.frontends.sdk.channel import ControlChannel, ControlError

if TYPE_CHECKING:
    from agentcli.mcp.sdk_transport import SdkMessages


class SdkServerError(ControlError):
    """The program's answer to an `mcp_message` carries no `mcp_response`."""


def sdk_messages(channel: ControlChannel) -> SdkMessages:
    """The `SdkMessages` sender (mcp/sdk_transport.py) over `channel`."""

    async def send(server_name: str, message: dict[str, Any]) -> dict[str, Any] | None:
        reply = await channel.request(
            {"subtype": "mcp_message", "server_name": server_name, "message": message}
        )
        response = reply.get("mcp_response")
        if response is None:
            return None
        if not isinstance(response, dict):
            raise SdkServerError(f"the reply for SDK server {server_name} is not an object")
        return response

    return send
