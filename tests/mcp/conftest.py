"""`mcp_manager(*servers)`: a started McpManager, closed at the end of the test;
`shared_manager`: one connected to the test server for a module's read-only tests;
`shared_http_url`: the test server over streamable HTTP, one process for a module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import pytest_asyncio

from agentcli.mcp.config.servers import ConfiguredServer
from agentcli.mcp.manager import McpManager, load_sdk
from tests.mcp.support import REPO, SHARED, http_server, servers, stdio


@pytest.fixture
async def mcp_manager() -> AsyncIterator[Callable[..., McpManager]]:
    made: list[McpManager] = []

    def make(
        *configured: ConfiguredServer, startup_s: float = 30.0, tool_s: float = 30.0
    ) -> McpManager:
        load_sdk()
        manager = McpManager(
            servers(*configured), startup_timeout_s=startup_s, tool_timeout_s=tool_s, cwd=REPO
        )
        made.append(manager)
        return manager

    yield make
    for manager in made:
        await manager.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_manager() -> AsyncIterator[McpManager]:
    """The test server over stdio, connected once for a module (on each worker that runs
    its tests): starting one is some 2 s of CPU, most of it importing the MCP SDK. Only for
    tests that change neither the server nor the connection (calls of echo, picture,
    document, fail, peek; lists; reads), marked `asyncio(loop_scope="module")` to run in
    the loop it lives in; the rest start their own with `mcp_manager`."""
    load_sdk()
    manager = McpManager(
        servers(stdio(SHARED)), startup_timeout_s=30.0, tool_timeout_s=30.0, cwd=REPO
    )
    await manager.start()
    assert await manager.wait_ready()
    yield manager
    await manager.close()


@pytest.fixture(scope="module")
def shared_http_url() -> Iterator[str]:
    """The test server over streamable HTTP, one process for a module; each test connects
    its own client (a server serves any number). What a test changes on it (grow's extra
    tool) no other test of the module looks at."""
    with http_server("--http") as url:
        yield url
