"""What the person does to MCP servers from the app, each a call or two on the manager.

`/mcp`, the start-up approval question, prompt commands and `@server:uri`
all come through here, so each thing is done one way: an approval is
remembered (mcp/config/approval.py) before the manager hears of it; a
problem is returned as one line for the app to show, never raised at it.

Two of these stand in for what the manager does not offer yet, and is asked
for: taking a server the person approved or rejected in or out of the
session (`McpManager.approve`, `.reject`), and a bound on reading a resource
or fetching a prompt (the tool timeout). Each is marked `Interim`.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from agentcli.core.messages import Message, ResultPart
    from agentcli.mcp.manager import McpManager

T = TypeVar("T")


async def approve(manager: McpManager, project: Path, names: Sequence[str]) -> str | None:
    """Remember a yes for these `.mcp.json` servers and start them."""
    from agentcli.mcp.config.approval import approve_project_servers

    if not names:
        return None
    try:
        plugins = {  # a plugin's server is approved as it is configured (plugins/servers.py)
            name: server.spec
            for name in names
            if (server := manager.configured.get(name)) is not None and server.scope == "plugin"
        }
        await asyncio.to_thread(approve_project_servers, project, names, plugins)
    except (OSError, ValueError) as exc:
        return f"Could not remember approving {', '.join(names)}: {exc}"
    await _sdk_loaded()
    for name in names:
        server = manager.configured.get(name)
        if server is not None:  # Interim: McpManager.approve(name)
            manager.configured[name] = dataclasses.replace(server, approved=True)
            await manager.reconnect(name)
    return None


async def reject(manager: McpManager, project: Path, names: Sequence[str]) -> str | None:
    """Remember a no for these `.mcp.json` servers; they leave this session's list."""
    from agentcli.mcp.config.approval import reject_project_servers

    if not names:
        return None
    try:
        await asyncio.to_thread(reject_project_servers, project, names)
    except (OSError, ValueError) as exc:
        return f"Could not remember rejecting {', '.join(names)}: {exc}"
    for name in names:
        manager.configured.pop(name, None)  # Interim: McpManager.reject(name), with a notice
    return None


async def reconnect(manager: McpManager, name: str) -> str | None:
    """Connect the server again (a failed, connected or disabled one)."""
    from agentcli.mcp.errors import McpCallError

    await _sdk_loaded()
    try:
        await manager.reconnect(name)
    except McpCallError as exc:
        return str(exc)
    return None


async def disable(manager: McpManager, name: str) -> str | None:
    """Close the server for the rest of the session."""
    from agentcli.mcp.errors import McpCallError

    try:
        await manager.disable(name)
    except McpCallError as exc:
        return str(exc)
    return None


async def _sdk_loaded() -> None:
    """Connecting imports the SDK (about a second): done off the UI thread first, in
    case the person acts before the app's loader has imported it."""
    from agentcli.mcp.manager import load_sdk

    await asyncio.to_thread(load_sdk)


async def fetch_prompt(
    manager: McpManager, server: str, name: str, arguments: dict[str, str]
) -> list[Message]:
    """The prompt's messages. Raises McpCallError (a timeout too)."""
    return await _bounded(manager, manager.get_prompt(server, name, arguments), f"prompt {name}")


async def read_resource(manager: McpManager, server: str, uri: str) -> list[ResultPart]:
    """The resource's contents as content blocks. Raises McpCallError (a timeout too)."""
    return await _bounded(manager, manager.read_resource(server, uri), f"reading {uri}")


async def _bounded(manager: McpManager, call: Awaitable[T], what: str) -> T:
    """Interim: the manager bounds its own calls by the tool timeout."""
    from agentcli.mcp.errors import McpCallError

    limit = manager.tool_timeout_s
    try:
        return await asyncio.wait_for(call, limit)
    except TimeoutError:
        raise McpCallError(f"{what} timed out after {limit:g} s (MCP_TOOL_TIMEOUT)") from None
