"""Starting `agentcli mcp serve`: over stdio (the default), or streamable HTTP on loopback.

    agentcli mcp serve [--permission-mode MODE] [--allowedTools RULE...]
                       [--disallowedTools RULE...] [--model MODEL] [--http [--port N]]

Over HTTP it listens on 127.0.0.1 only (the SDK's DNS-rebinding protection
on), and says where on stderr once it listens: `MCP_URL=http://127.0.0.1:PORT/mcp`.
It serves until stdin reaches its end (stdio), or a signal ends it.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from pathlib import Path
from typing import Any

from agentcli.wiring.bootstrap import Options, build_engine


def serve(args: argparse.Namespace) -> int:
    """Run the server until its client goes; the exit status."""
    options = Options(
        cwd=Path.cwd().resolve(),
        model=args.model,
        permission_mode=args.permission_mode,
        allowed_tools=args.allowed_tools,
        disallowed_tools=args.disallowed_tools,
        trusted=True,  # as `-p`: the client that starts the server chose the folder
    )
    try:
        asyncio.run(_serve(options, http=args.http, port=args.port))
    except KeyboardInterrupt:
        return 130
    return 0


async def _serve(options: Options, *, http: bool, port: int) -> None:
    from agentcli.frontends.mcp_server.agent_turn import AgentTurns
    from agentcli.frontends.mcp_server.server import ServedTools, build_server

    engine = build_engine(options, provider=None)
    server = build_server(ServedTools(engine), AgentTurns(options))
    if http:
        await _serve_http(server, port)
        return
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def _serve_http(server: Any, port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listening.bind(("127.0.0.1", port))
    listening.listen()  # before the address is told: a client may connect at once
    url = f"http://127.0.0.1:{listening.getsockname()[1]}/mcp"
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"MCP_URL={url}", file=sys.stderr, flush=True)
    await uvicorn.Server(config).serve(sockets=[listening])
