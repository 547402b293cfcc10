"""`mcp_manager(*servers)`: a started McpManager, closed at the end of the test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from agentcli.mcp.config.servers import ConfiguredServer
from agentcli.mcp.manager import McpManager, load_sdk
from tests.mcp.support import REPO, servers


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
