"""One MCP server's connection, from start-up to its end, in one task.

`start()` runs `_life()` as a task: open the transport, connect (the SDK
negotiates the protocol era), list what the server offers, then stay
connected until `close()` or until the transport ends (the process exited,
the connection dropped). Start-up is bounded by the start-up timeout; the
task's cancel scope is what enforces it, so an abandoned start-up unwinds
the SDK's task groups in order and the stdio shutdown (close stdin, then
SIGTERM, SIGKILL to the process group) always runs: a cancellation asked
for while the process is being spawned waits until the SDK holds it
(startup.py).

Changes to the lists arrive two ways: legacy (handshake-era) servers send
`notifications/*/list_changed`, modern (2026-07-28) ones answer a
`subscriptions/listen` stream. Either marks a kind dirty; one refresher
task refetches it, so a notification is never answered inside the SDK's
read loop. `on_change` hears of every change of state or lists. A tool call
that changed the lists returns once they are refetched, so the model's next
request already has the new tools.

Calls never raise (but for cancellation): a timeout, a server that died, a
protocol error each end in an error result with words the model can act on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio
from mcp import Client
from mcp.client import IncomingMessage
from mcp.client.subscriptions import (
    ListenNotSupportedError,
    PromptsListChanged,
    ResourcesListChanged,
    SubscriptionLost,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    Implementation,
    PromptListChangedNotification,
    ResourceListChangedNotification,
    ServerCapabilities,
    ToolListChangedNotification,
)

from agentcli import __version__
from agentcli.core.messages import Message, ResultPart
from agentcli.mcp import listings
from agentcli.mcp.errors import McpCallError
from agentcli.mcp.results import content_blocks, resource_blocks, tool_result
from agentcli.mcp.sdk_transport import SdkMessages
from agentcli.mcp.startup import Startup
from agentcli.mcp.status import PromptInfo, ResourceInfo, ServerStatus, State
from agentcli.mcp.stderr_tail import StderrTail
from agentcli.mcp.tools import ToolSpec
from agentcli.mcp.transports import open_transport
from agentcli.tools.base import ToolResult

if TYPE_CHECKING:
    from agentcli.mcp.config.servers import ConfiguredServer

Kind = Literal["tools", "prompts", "resources"]
KINDS: tuple[Kind, ...] = ("tools", "prompts", "resources")
RELISTEN_DELAY_S = 1.0
CATCH_UP_S = 5.0  # the longest a call waits for the lists it changed to be refetched
CALL_TAIL_LINES = 5  # of a dead server's stderr, in the result the model reads
CLIENT_INFO = Implementation(name="agentcli", version=__version__)


class Connection:
    def __init__(
        self,
        server: ConfiguredServer,
        *,
        cwd: Path,
        env: Mapping[str, str],
        startup_timeout_s: float,
        tool_timeout_s: float,
        on_change: Callable[[], None],
        sdk_messages: SdkMessages | None = None,
    ) -> None:
        self.server = server
        self._sdk_messages = sdk_messages
        self.name = server.name
        self._cwd = cwd
        self._env = env
        self._startup_timeout_s = startup_timeout_s
        self._tool_timeout_s = tool_timeout_s
        self._on_change = on_change
        self.state: State = "pending"
        self.error: str | None = None
        self.tools: list[ToolSpec] = []
        self.prompts: list[PromptInfo] = []
        self.resources: list[ResourceInfo] = []
        self._server_info: str | None = None
        self._capabilities: ServerCapabilities | None = None
        self._client: Client | None = None
        self._stderr: StderrTail | None = None
        self._task: asyncio.Task[None] | None = None
        self._startup: Startup | None = None
        self._settled = asyncio.Event()
        self._wake = anyio.Event()  # close() or the transport's end
        self._lost = anyio.Event()
        self._closing = False
        self._dirty: set[Kind] = set()
        self._poke = anyio.Event()
        self._caught_up = asyncio.Event()  # no change waits to be refetched
        self._caught_up.set()

    # -- life ---------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._life(), name=f"mcp:{self.name}")

    async def settled(self) -> None:
        """Wait until the server is connected or has failed (or was closed)."""
        await self._settled.wait()

    async def close(self) -> None:
        """End the connection (and a stdio server's process); wait for it."""
        self._closing = True
        self._wake.set()
        if self.state == "pending" and self._startup is not None:
            self._startup.cancel()  # stop connecting: the transport unwinds, the process ends
        if self._task is not None:
            await asyncio.shield(self._task)

    def status(self) -> ServerStatus:
        return ServerStatus(
            name=self.name,
            scope=self.server.scope,
            transport=self.server.spec.type,
            state=self.state,
            error=self.error,
            stderr_tail=self._stderr.tail() if self._stderr is not None else "",
            tools=len(self.tools),
            prompts=len(self.prompts),
            resources=len(self.resources),
            server_info=self._server_info,
        )

    async def _life(self) -> None:
        if self.server.spec.type == "stdio":
            self._stderr = StderrTail()
        try:
            startup = self._startup = Startup()
            with startup.scope:
                # Past the deadline the server is failed at once; unwinding the start-up
                # (a stdio server's shutdown) goes on in this task, which close() awaits.
                timer = asyncio.get_running_loop().call_later(
                    self._startup_timeout_s, self._startup_expired, startup
                )
                try:
                    await self._connected_life(startup, timer)
                finally:
                    timer.cancel()
        except Exception as exc:
            if not self._closing and self.state != "failed":
                self._fail(describe_failure(exc))
        finally:
            self._client = None
            self._settled.set()
            if self._stderr is not None:
                self._stderr.close()

    def _startup_expired(self, startup: Startup) -> None:
        self._fail(f"did not start within {self._startup_timeout_s:g} s (MCP_TIMEOUT)")
        startup.cancel()

    async def _connected_life(self, startup: Startup, startup_timer: asyncio.TimerHandle) -> None:
        async with AsyncExitStack() as stack:
            transport = await open_transport(
                self.name,
                self.server.spec,
                stack,
                cwd=self._cwd,
                env=self._env,
                lost=self._lost,
                stderr=self._stderr,
                startup=startup,
                sdk_messages=self._sdk_messages,
            )
            client = Client(
                transport,
                message_handler=self._on_message,
                client_info=CLIENT_INFO,
                cache=None,
            )
            await stack.enter_async_context(client)
            self._capabilities = client.server_capabilities
            for kind in KINDS:
                await self._refetch(client, kind)
            startup_timer.cancel()
            self._client = client
            self._server_info = _server_info(client.server_info)
            self._set_state("connected")
            async with anyio.create_task_group() as group:
                group.start_soon(self._watch_lost)
                group.start_soon(self._refresher, client)
                group.start_soon(self._listen, client)
                await self._wake.wait()
                group.cancel_scope.cancel()
            self._client = None
            if self._lost.is_set() and not self._closing and self.state != "failed":
                self._fail(self._lost_reason())

    async def _watch_lost(self) -> None:
        await self._lost.wait()
        self._wake.set()

    def _set_state(self, state: State) -> None:
        self.state = state
        if state != "pending":
            self._settled.set()
        self._on_change()

    def _fail(self, error: str) -> None:
        self.error = error
        self.tools, self.prompts, self.resources = [], [], []
        self._set_state("failed")

    def _lost_reason(self) -> str:
        if self.server.spec.type == "stdio":
            return "the server process exited"
        return "the server closed the connection"

    # -- what the server offers, and its changes ------------------------------------

    def _offers(self, kind: Kind) -> bool:
        caps = self._capabilities
        if caps is None:
            return True
        return getattr(caps, kind) is not None

    async def _refetch(self, client: Client, kind: Kind) -> None:
        if not self._offers(kind):
            return
        if kind == "tools":
            self.tools = await listings.list_tools(client)
        elif kind == "prompts":
            self.prompts = await listings.list_prompts(client, self.name)
        else:
            self.resources = await listings.list_resources(client, self.name)

    def _mark(self, kind: Kind) -> None:
        self._dirty.add(kind)
        self._caught_up.clear()
        self._poke.set()

    async def _refresher(self, client: Client) -> None:
        while True:
            await self._poke.wait()
            self._poke = anyio.Event()
            kinds, self._dirty = self._dirty, set()
            for kind in KINDS:
                if kind in kinds:
                    try:
                        await self._refetch(client, kind)
                    except Exception:  # the old list stands; the next change tries again
                        continue
            self._on_change()
            if not self._dirty:
                self._caught_up.set()

    async def _catch_up(self) -> None:
        """After a call: let the changes it announced be refetched (bounded), so the
        next request already shows them. The server sends a change before the result
        it belongs to; one turn of the loop lets its handler mark it."""
        await asyncio.sleep(0)
        try:
            await asyncio.wait_for(self._caught_up.wait(), CATCH_UP_S)
        except TimeoutError:
            pass

    async def _on_message(self, message: IncomingMessage) -> None:
        """Legacy servers' notifications (called in the SDK's read loop: no awaiting)."""
        match message:
            case ToolListChangedNotification():
                self._mark("tools")
            case PromptListChangedNotification():
                self._mark("prompts")
            case ResourceListChangedNotification():
                self._mark("resources")

    async def _listen(self, client: Client) -> None:
        """Modern servers' change events, on a `subscriptions/listen` stream kept open."""
        while True:
            try:
                async with client.listen(
                    tools_list_changed=self._offers("tools"),
                    prompts_list_changed=self._offers("prompts"),
                    resources_list_changed=self._offers("resources"),
                ) as subscription:
                    async for event in subscription:
                        match event:
                            case ToolsListChanged():
                                self._mark("tools")
                            case PromptsListChanged():
                                self._mark("prompts")
                            case ResourcesListChanged():
                                self._mark("resources")
            except SubscriptionLost:
                pass
            except (ListenNotSupportedError, MCPError, TimeoutError):
                return  # a legacy server, or one that does not serve it: no live changes
            await anyio.sleep(RELISTEN_DELAY_S)
            for kind in KINDS:  # nothing is replayed: what changed meanwhile is refetched
                self._mark(kind)

    # -- calls ----------------------------------------------------------------------

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        client = self._client
        if client is None:
            return ToolResult(self._unavailable(), is_error=True)
        try:
            result = await client.call_tool(
                tool, arguments, read_timeout_seconds=self._tool_timeout_s
            )
        except MCPError as exc:
            return ToolResult(self._call_failure(exc, f"tool {tool}"), is_error=True)
        except Exception as exc:
            return ToolResult(f"MCP server {self.name}: {describe_failure(exc)}", is_error=True)
        await self._catch_up()
        return tool_result(self.name, tool, result)

    async def read_resource(self, uri: str) -> list[ResultPart]:
        """The resource's contents as content blocks. Raises McpCallError."""
        client = self._client
        if client is None:
            raise McpCallError(self._unavailable())
        try:
            result = await client.read_resource(uri)
        except MCPError as exc:
            raise McpCallError(self._call_failure(exc, f"reading {uri}")) from None
        except Exception as exc:
            raise McpCallError(f"MCP server {self.name}: {describe_failure(exc)}") from None
        return [block for item in result.contents for block in resource_blocks(self.name, item)]

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> list[Message]:
        """The prompt's messages, API-shaped ({role, content: blocks}). Raises McpCallError."""
        client = self._client
        if client is None:
            raise McpCallError(self._unavailable())
        try:
            result = await client.get_prompt(name, arguments)
        except MCPError as exc:
            raise McpCallError(self._call_failure(exc, f"prompt {name}")) from None
        except Exception as exc:
            raise McpCallError(f"MCP server {self.name}: {describe_failure(exc)}") from None
        return [
            {"role": message.role, "content": [*content_blocks(self.name, [message.content])]}
            for message in result.messages
        ]

    def _unavailable(self) -> str:
        why = f": {self.error}" if self.error else ""
        return f"MCP server {self.name} is not connected ({self.state}{why})"

    def _call_failure(self, exc: MCPError, what: str) -> str:
        if exc.code == REQUEST_TIMEOUT:
            return (
                f"MCP server {self.name}: {what} timed out after {self._tool_timeout_s:g} s "
                "(MCP_TOOL_TIMEOUT); the server was asked to cancel it"
            )
        if exc.code == CONNECTION_CLOSED:
            self._lost.set()
            if not self._closing and self.state == "connected":  # the next request knows
                self._fail(self._lost_reason())
            text = f"MCP server {self.name}: {self._lost_reason()} during {what}"
            tail = self._stderr.tail(CALL_TAIL_LINES) if self._stderr is not None else ""
            return f"{text}. Its last words on stderr:\n{tail}" if tail else text
        return f"MCP server {self.name}: {what} failed: {exc.message} (error {exc.code})"


def _server_info(info: Implementation | None) -> str | None:
    if info is None:
        return None
    return f"{info.name} {info.version}".strip()


def describe_failure(exc: BaseException) -> str:
    """One line for why a connection or a call failed (an ExceptionGroup: its first cause)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return f"{exc.message} (error {exc.code})"
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"command not found: {exc.filename}"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
