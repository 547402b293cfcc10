"""The MCP servers of a session: connected in the background, in parallel.

`McpManager` is one of the engine's parts (engine/parts.py). The engine
reads `tools()` before each request, so a server that connects, fails or
changes its tools changes what the model sees from the next request on; the
list is sorted by name after the built-in tools, so it stays byte-identical
(the prompt cache's prefix) until a server really changes it.

Nothing here waits for a server unless asked: `start()` starts one task per
approved server and returns; a slow or broken server delays nothing but
itself. `-p` waits for them before its first request, at most
`connect_wait_s` (mcp/oneshot.py); one still starting then joins the run
when it connects. A project's `.mcp.json` server that the person has not
approved is listed as "needs approval" and never started.

This module imports no SDK: the composition root builds a manager without
the slow `import mcp`, which `load_sdk()` does off the UI thread (`start()`
does it too when nobody did). The API front ends use is in docs/mcp.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.core.messages import Message, ResultPart
from agentcli.mcp.errors import McpCallError
from agentcli.mcp.names import api_names
from agentcli.mcp.status import PromptInfo, ResourceInfo, ServerStatus, State

if TYPE_CHECKING:
    from agentcli.core.abort import AbortSignal
    from agentcli.mcp.config.servers import ConfiguredServer, McpServers
    from agentcli.mcp.connection import Connection
    from agentcli.mcp.sdk_transport import SdkMessages
    from agentcli.tools.base import Tool

Listener = Callable[[], None]


def load_sdk() -> None:
    """Import the MCP SDK (about a second): call it off the UI thread, before `start()`."""
    import agentcli.mcp.connection  # noqa: F401


# How long past the start-up timeout `wait_ready()` waits for servers to fail themselves.
SETTLE_GRACE_S = 5.0


class McpManager:
    def __init__(
        self,
        servers: McpServers,
        *,
        startup_timeout_s: float,
        tool_timeout_s: float,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        connect_wait_s: float | None = None,
        sdk_messages: SdkMessages | None = None,
    ) -> None:
        """`cwd`: where stdio servers start (the project); `env`: the settings' `env`,
        over agentcli's own environment, under each server's `env`; `connect_wait_s`:
        how long a one-shot run waits for the servers (at most `startup_timeout_s`);
        `sdk_messages`: how SDK servers' messages reach the Agent SDK program."""
        self._sdk_messages = sdk_messages
        self.configured: dict[str, ConfiguredServer] = dict(servers.servers)
        self.problems: list[str] = list(servers.problems)
        self.startup_timeout_s = startup_timeout_s
        self.tool_timeout_s = tool_timeout_s
        self.connect_wait_s = min(
            startup_timeout_s if connect_wait_s is None else connect_wait_s, startup_timeout_s
        )
        self._cwd = cwd or Path.cwd()
        self._env = dict(env or {})
        self._connections: dict[str, Connection] = {}
        self._disabled: set[str] = set()
        self._listeners: list[Listener] = []
        self._generation = 0
        self._tools: tuple[int, list[Tool]] | None = None
        self._started = False

    # -- life -----------------------------------------------------------------------

    async def start(self) -> None:
        """Start connecting every approved server, each in its own task; returns at once."""
        if self._started:
            return
        self._started = True
        for server in self.configured.values():
            if server.approved:
                self._connect(server)
        self._changed()

    async def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until every started server is connected or has failed; False when
        `timeout` (seconds) ran out first. By default the wait ends when each server has
        settled itself, at the latest at its own start-up timeout: a timer on the same
        deadline here could fire first on a busy machine and leave a server "pending"
        (SETTLE_GRACE_S covers that, and only bounds a connection that never settles)."""
        waits = [connection.settled() for connection in self._connections.values()]
        if not waits:
            return True
        limit = self.startup_timeout_s + SETTLE_GRACE_S if timeout is None else timeout
        try:
            await asyncio.wait_for(asyncio.gather(*waits), limit)
        except TimeoutError:
            return False
        return True

    async def wait_ready_unless(self, abort: AbortSignal, timeout: float | None = None) -> None:
        """`wait_ready(timeout)`, cut short when `abort` fires (Ctrl+C, a client's cancel):
        a front end's first prompt waits for the servers' tools, but not past a stop."""
        waiting = asyncio.ensure_future(self.wait_ready(timeout))
        remove = abort.on_abort(waiting.cancel)
        try:
            await waiting
        except asyncio.CancelledError:
            if not abort.aborted:
                raise
        finally:
            remove()

    async def reconnect(self, name: str) -> None:
        """Close the server's connection, if any, and connect again (a disabled one too)."""
        server = self._configured(name)
        if not server.approved:
            raise McpCallError(f"MCP server {name} needs approval before it can start")
        await self._drop(name)
        self._disabled.discard(name)
        self._connect(server)
        self._changed()

    async def disable(self, name: str) -> None:
        """Close the server's connection and keep it closed for this session."""
        self._configured(name)
        self._disabled.add(name)
        await self._drop(name)
        self._changed()

    async def close(self) -> None:
        """End every connection: each stdio server's process is ended and waited for."""
        connections = list(self._connections.values())
        self._connections.clear()
        await asyncio.gather(*(connection.close() for connection in connections))

    # -- what front ends and the engine read -------------------------------------------

    @property
    def generation(self) -> int:
        """Goes up by one with every change of a server's state or lists."""
        return self._generation

    def on_change(self, listener: Listener) -> Callable[[], None]:
        """Call `listener()` (on the event loop) after each change; returns the undo."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def status(self) -> list[ServerStatus]:
        """Every configured server, in configuration order."""
        return [self._status(server) for server in self.configured.values()]

    def tools(self) -> list[Tool]:
        """The tools of the connected servers, sorted by name (the resource tools
        first, while a connected server has resources). The same objects until the
        next change."""
        if self._tools is None or self._tools[0] != self._generation:
            self._tools = (self._generation, self._build_tools())
        return list(self._tools[1])

    def prompts(self) -> list[PromptInfo]:
        return [prompt for c in self._connected() for prompt in c.prompts]

    def resources(self) -> list[ResourceInfo]:
        return [resource for c in self._connected() for resource in c.resources]

    async def read_resource(self, server: str, uri: str) -> list[ResultPart]:
        """The resource's contents as API content blocks. Raises McpCallError."""
        return await self._connection(server).read_resource(uri)

    async def get_prompt(
        self, server: str, name: str, arguments: dict[str, str] | None = None
    ) -> list[Message]:
        """The prompt's messages, API-shaped ({role, content}). Raises McpCallError."""
        return await self._connection(server).get_prompt(name, arguments or {})

    # -- inside -----------------------------------------------------------------------

    def _connect(self, server: ConfiguredServer) -> None:
        from agentcli.mcp.connection import Connection

        connection = Connection(
            server,
            cwd=self._cwd,
            env=self._env,
            startup_timeout_s=self.startup_timeout_s,
            tool_timeout_s=self.tool_timeout_s,
            on_change=self._changed,
            sdk_messages=self._sdk_messages,
        )
        self._connections[server.name] = connection
        connection.start()

    async def _drop(self, name: str) -> None:
        connection = self._connections.pop(name, None)
        if connection is not None:
            await connection.close()

    def _changed(self) -> None:
        self._generation += 1
        for listener in list(self._listeners):
            listener()

    def _configured(self, name: str) -> ConfiguredServer:
        server = self.configured.get(name)
        if server is None:
            known = ", ".join(self.configured) or "none"
            raise McpCallError(f"no MCP server is named {name!r} (configured: {known})")
        return server

    def _connection(self, name: str) -> Connection:
        self._configured(name)
        connection = self._connections.get(name)
        if connection is None:
            state = self._status(self.configured[name]).state
            raise McpCallError(f"MCP server {name} is not connected ({state})")
        return connection

    def _connected(self) -> Iterable[Connection]:
        return (c for c in self._connections.values() if c.state == "connected")

    def _status(self, server: ConfiguredServer) -> ServerStatus:
        connection = self._connections.get(server.name)
        if connection is not None:
            return connection.status()
        state: State
        if not server.approved:
            state = "needs approval"
        elif server.name in self._disabled:
            state = "disabled"
        else:
            state = "pending"
        return ServerStatus(server.name, server.scope, server.spec.type, state)

    def _build_tools(self) -> list[Tool]:
        connected = list(self._connected())
        if not connected:  # no server yet (or none at all): nothing to import for it
            return []
        from agentcli.mcp.resource_tools import ListMcpResourcesTool, ReadMcpResourceTool
        from agentcli.mcp.tools import McpTool

        names = api_names((c.name, spec.name) for c in connected for spec in c.tools)
        tools: list[Tool] = [
            McpTool(names[(c.name, spec.name)], c.name, spec, c)
            for c in connected
            for spec in c.tools
        ]
        if any(c.resources for c in connected):
            tools += [ListMcpResourcesTool(self), ReadMcpResourceTool(self)]
        return sorted(tools, key=lambda tool: tool.name)
