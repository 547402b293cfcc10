"""What the tests' MCP server (tests/mcp/server.py, the command) offers, written
with the SDK's MCPServer (FastMCP), and how it serves: over stdio, as a server of the
handshake era (`legacy`), or over streamable HTTP or SSE on loopback.

What it offers, one of each thing a client must handle: tools returning text
(echo), text + image + structured content (picture), an embedded resource
and a resource link (document), an error (fail), a call that takes its time
(slow: writes `started` and then `cancelled` or `finished` to a file given
as `mark`), a crash of the process mid-call (crash), a change of the tool
list (grow), a read-only tool (peek), its process id (pid); two resources (text and image) and a
prompt (review).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import (
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)

# A 1x1 PNG.
DOT_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
LEGACY = "--legacy" in sys.argv

mcp: MCPServer[Any] = MCPServer("agentcli-test", version="1.0", log_level="WARNING")


@mcp.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@mcp.tool()
def pid() -> int:
    """This server's process id."""
    return os.getpid()


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def peek(what: str) -> str:
    """Look at something without changing it."""
    return f"peeked at {what}"


@mcp.tool()
def picture() -> CallToolResult:
    """A picture of a red dot, with its facts (as structured content, and as its JSON in
    text, as the spec asks of a server for clients that read only the content)."""
    facts = {"width": 1, "height": 1, "color": "red"}
    return CallToolResult(
        content=[
            TextContent(text="A red dot."),
            ImageContent(data=DOT_PNG, mime_type="image/png"),
            TextContent(text=json.dumps(facts)),
        ],
        structured_content=facts,
    )


@mcp.tool()
def document() -> CallToolResult:
    """A document embedded in the result, and a link to another."""
    return CallToolResult(
        content=[
            EmbeddedResource(
                resource=TextResourceContents(uri="test://notes.txt", text="Remember the milk.")
            ),
            ResourceLink(name="greeting", uri="test://greeting", description="a friendly word"),
        ]
    )


@mcp.tool()
def fail() -> str:
    """Always fails."""
    raise ToolError("the disk is full")


@mcp.tool()
async def slow(seconds: float, mark: str = "") -> str:
    """Take `seconds` to answer."""
    note = Path(mark) if mark else None
    if note:
        note.write_text("started")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        if note:
            note.write_text("cancelled")
        raise
    if note:
        note.write_text("finished")
    return f"slept {seconds} s"


@mcp.tool()
def crash() -> str:
    """Ends the server's process in the middle of the call."""
    print("about to crash: out of cheese", file=sys.stderr, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    return "never"


@mcp.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `extra` (the tool list changes)."""

    def extra() -> str:
        """A tool that was not there at first."""
        return "extra!"

    mcp.add_tool(extra)
    await ctx.notify_tools_changed()  # 2026-07-28: to subscriptions/listen streams
    if LEGACY:
        await ctx.session.send_tool_list_changed()  # handshake era: a notification
    return "grown"


@mcp.resource("test://greeting", mime_type="text/plain", description="a friendly word")
def greeting() -> str:
    return "hello"


@mcp.resource("test://dot.png", mime_type="image/png")
def dot() -> bytes:
    import base64

    return base64.b64decode(DOT_PNG)


@mcp.prompt()
def review(topic: str) -> str:
    """Ask for a review of a topic."""
    return f"Please review {topic}."


def serve(*, http: bool, sse: bool, legacy: bool) -> None:
    """Serve until the client goes (stdio) or stdin reaches EOF (HTTP, SSE)."""
    if http or sse:
        asyncio.run(_serve_http(sse=sse))
    elif legacy:
        asyncio.run(_serve_legacy_stdio())
    else:
        mcp.run()


async def _serve_legacy_stdio() -> None:
    """Over stdio as a server from before 2026-07-28: `server/discover` is refused
    before the server sees it, so the client falls back to the handshake."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage
    from mcp_types import ErrorData, JSONRPCError, JSONRPCRequest

    async with stdio_server() as (read, write):
        forward, received = anyio.create_memory_object_stream[Any](0)

        async def pump() -> None:
            async with forward:
                async for item in read:
                    message = getattr(item, "message", None)
                    if isinstance(message, JSONRPCRequest) and message.method == "server/discover":
                        error = ErrorData(code=-32601, message="Method not found")
                        await write.send(
                            SessionMessage(JSONRPCError(jsonrpc="2.0", id=message.id, error=error))
                        )
                        continue
                    await forward.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            low = mcp._lowlevel_server
            await low.run(received, write, low.create_initialization_options())
            group.cancel_scope.cancel()


async def _serve_http(*, sse: bool) -> None:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # Listen before the URL is printed: a client that connects before uvicorn's own
    # start-up then waits in the backlog instead of being refused (a bound socket
    # that is not listening refuses, and on a busy machine the client is that quick).
    sock.listen(128)
    app = mcp.sse_app() if sse else mcp.streamable_http_app()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    path = "/sse" if sse else "/mcp"
    print(f"MCP_URL=http://127.0.0.1:{port}{path}", flush=True)
    loop = asyncio.get_running_loop()
    threading.Thread(target=_exit_at_eof, args=(loop, server), daemon=True).start()
    await server.serve(sockets=[sock])


def _exit_at_eof(loop: asyncio.AbstractEventLoop, server: Any) -> None:
    sys.stdin.read()
    loop.call_soon_threadsafe(setattr, server, "should_exit", True)
