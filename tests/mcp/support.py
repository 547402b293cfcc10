"""MCP servers for the tests: configurations, and the test server over HTTP.

`stdio(...)`, `http(...)`, `sse(...)` make the `ConfiguredServer` objects the
configuration part hands the client; `servers(...)` the `McpServers` of a
session. `TEST_SERVER` runs tests/mcp/server.py over stdio; `http_server()`
starts it on loopback and gives its URL (the process ends with the test).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentcli.core.abort import AbortSignal
from agentcli.mcp.config.servers import ConfiguredServer, McpServers
from agentcli.mcp.config.specs import HttpServer, SseServer, StdioServer
from agentcli.mcp.manager import McpManager
from agentcli.mcp.status import ServerStatus
from agentcli.tools.base import Tool, ToolContext, ToolResult, Workspace

REPO = Path(__file__).resolve().parents[2]
TEST_SERVER = [sys.executable, "-m", "tests.mcp.server"]
SHARED = "shared"  # conftest's shared_manager: its server's name (tools mcp__shared__*)


def stdio(
    name: str = "test", *args: str, approved: bool = True, scope: str = "local"
) -> ConfiguredServer:
    """The test server over stdio, with extra command-line `args` (--legacy, --delay S)."""
    spec = StdioServer(command=TEST_SERVER[0], args=[*TEST_SERVER[1:], *args], env=_pythonpath())
    return ConfiguredServer(name, spec, scope, "test", approved)


def command(name: str, command: str, *args: str) -> ConfiguredServer:
    return ConfiguredServer(
        name, StdioServer(command=command, args=list(args)), "local", "test", True
    )


def http(name: str, url: str, headers: dict[str, str] | None = None) -> ConfiguredServer:
    spec = HttpServer(type="http", url=url, headers=headers or {})
    return ConfiguredServer(name, spec, "user", "test", True)


def sse(name: str, url: str) -> ConfiguredServer:
    return ConfiguredServer(name, SseServer(type="sse", url=url), "user", "test", True)


def servers(*configured: ConfiguredServer, problems: list[str] | None = None) -> McpServers:
    return McpServers({server.name: server for server in configured}, problems or [])


def _pythonpath() -> dict[str, str]:
    return {"PYTHONPATH": str(REPO)}


@contextlib.contextmanager
def http_server(*args: str) -> Iterator[str]:
    """The test server on loopback (`--http` or `--sse` in `args`); yields its URL."""
    env = {**os.environ, **_pythonpath()}
    process = subprocess.Popen(
        [*TEST_SERVER, *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("MCP_URL="), line
        yield line.strip().removeprefix("MCP_URL=")
    finally:
        if process.stdin:
            process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def tagged_processes(tag: str) -> list[int]:
    """The live processes whose command line holds `tag` (`--tag` of the test server)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if tag.encode() in argv and not process_gone(int(entry.name)):
            found.append(int(entry.name))
    return found


async def eventually(check: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait until `check()` holds, for what only the outside world tells (a file, /proc)."""
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


def process_gone(pid: int) -> bool:
    """True when `pid` has exited and been reaped (or is a zombie nobody will run)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


async def until(manager: McpManager, predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait (on the manager's change notices, no polling) until `predicate()` holds."""
    changed = asyncio.Event()
    undo = manager.on_change(changed.set)
    try:
        async with asyncio.timeout(timeout):
            while not predicate():
                await changed.wait()
                changed.clear()
    finally:
        undo()


def state_of(manager: McpManager, name: str) -> ServerStatus:
    return next(status for status in manager.status() if status.name == name)


def tool_named(manager: McpManager, name: str) -> Tool:
    tool = next((tool for tool in manager.tools() if tool.name == name), None)
    assert tool is not None, (
        f"no tool {name}: {[t.name for t in manager.tools()]}; servers: {manager.status()}"
    )
    return tool


async def run_tool(tool: Tool, arguments: dict[str, Any], root: Path | None = None) -> ToolResult:
    """Run a tool as the engine does after permission: validated input, a context."""
    inp = tool.input_model.model_validate(arguments)
    return await tool.run(inp, ToolContext(Workspace(root or REPO), AbortSignal()))


def eventually_sync(check: Callable[[], bool], timeout: float = 90.0) -> None:
    """`eventually` for a test that is not async (a subprocess it watches). The bound is
    generous: what it watches is an agentcli process starting an MCP server process,
    seconds of CPU each, which on two cores shared with other work took over 30 s."""
    import time

    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)
