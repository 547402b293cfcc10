"""`agentcli --acp`: serve the Agent Client Protocol on stdin/stdout until the client leaves.

The client's `initialize` is answered at once, while the engine's modules
and the model SDK load in a thread (they take most of a start); the first
session request waits for them. stdout carries the protocol only;
everything for a person (warnings, logs) goes to stderr, which editors keep
as the agent's log. The process ends when the client closes stdin, after
each session's SessionEnd hooks and transcript are closed; SIGTERM does the
same.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.frontends.acp.agent import AcpAgent
    from agentcli.frontends.acp.rpc import Connection, Handler
    from agentcli.frontends.acp.schema import ClientCapabilities

# What a session needs, loaded while the client introduces itself: the agent and the
# Messages API provider (spoken over httpx; agentcli never imports the `anthropic` SDK,
# which, where a dev install has it, cost some 3 s of CPU here for nothing).
_HEAVY_MODULES = ("agentcli.frontends.acp.agent", "agentcli.providers.anthropic")


def main(args: Any) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    loading = threading.Thread(target=_load_heavy_modules, daemon=True)
    loading.start()
    try:
        asyncio.run(_serve(args, loading))
    except KeyboardInterrupt:
        return 130
    return 0


def _load_heavy_modules() -> None:
    for name in _HEAVY_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # reported where it is used (a session without a provider)
            pass


async def _serve(args: Any, loading: threading.Thread) -> None:
    from agentcli.frontends.acp.rpc import Connection, stdio_streams

    reader, writer = await stdio_streams()
    connection = Connection(reader, writer)
    front = _Front(args, connection, loading)
    connection.routes(front.requests(), {"session/cancel": front.cancel})
    serving = asyncio.ensure_future(connection.serve())
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, serving.cancel)
    try:
        await serving
    except asyncio.CancelledError:
        pass
    finally:
        await front.close()


class _Front:
    """`initialize` here; every other method goes to the agent, made on first use."""

    def __init__(self, args: Any, connection: Connection, loading: threading.Thread) -> None:
        self._args = args
        self._connection = connection
        self._loading = loading
        self._capabilities: ClientCapabilities | None = None
        self._agent: AcpAgent | None = None
        self._making = asyncio.Lock()  # two early requests make one agent

    def requests(self) -> dict[str, Handler]:
        methods = ("session/new", "session/load", "session/prompt", "session/set_mode")
        routes: dict[str, Handler] = {method: self._to_agent(method) for method in methods}
        routes["initialize"] = self.initialize
        return routes

    async def initialize(self, params: Any) -> dict[str, Any]:
        from agentcli.frontends.acp.handshake import initialize

        self._capabilities, answer = initialize(params)
        return answer

    async def cancel(self, params: Any) -> None:
        if self._agent is not None:  # no agent yet: no turn to stop
            await self._agent.cancel(params)

    async def close(self) -> None:
        if self._agent is not None:
            await self._agent.close()

    def _to_agent(self, method: str) -> Handler:
        async def handle(params: Any) -> Any:
            agent = await self._ready_agent()
            return await agent.requests()[method](params)

        return handle

    async def _ready_agent(self) -> AcpAgent:
        async with self._making:
            if self._agent is None:
                self._agent = await self._make_agent()
        return self._agent

    async def _make_agent(self) -> AcpAgent:
        await asyncio.to_thread(self._loading.join)
        from agentcli.frontends.acp.agent import AcpAgent
        from agentcli.frontends.acp.schema import ClientCapabilities
        from agentcli.wiring.bootstrap import Options

        options = Options.from_args(self._args, Path.cwd())
        return AcpAgent(options, self._connection, self._capabilities or ClientCapabilities())
