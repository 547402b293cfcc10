"""Fixtures for the UI tests: `mcp_manager` makes real MCP managers (tests/mcp/conftest.py);
`shared_test_server`: one manager of the test server (named `test`) for a module's tests
that change neither the server nor the connection; `fake_api_provider` is the Anthropic
provider on the fake Messages API, for tests that play a session for real; `snap_compare`
is the plugin's, which also prints what differs when a snapshot does not match."""

from __future__ import annotations

import pickle
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
from pytest_textual_snapshot import node_to_report_path

from agentcli.mcp.manager import load_sdk
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from tests.frontends.tui.mcp_support import KeptOpen
from tests.frontends.tui.snapshot_text import screen_diff
from tests.mcp.conftest import mcp_manager  # noqa: F401  (re-exported fixture)
from tests.mcp.support import REPO, servers, stdio


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_test_server() -> AsyncIterator[KeptOpen]:
    """The test server over stdio as `test`, connected once for a module (on each worker
    that runs its tests), left open by each app it is given. Its tests are marked
    `asyncio(loop_scope="module")` to run in the loop it lives in; a test that disables,
    stops or crashes the server starts its own with `mcp_manager`."""
    load_sdk()
    manager = KeptOpen(
        servers(stdio("test")), startup_timeout_s=30.0, tool_timeout_s=30.0, cwd=REPO
    )
    await manager.start()
    assert await manager.wait_ready()
    yield manager
    await manager.close_now()


@pytest.fixture
async def fake_api_provider(fake_api):
    made = AnthropicProvider(
        api_key="test-key", base_url=fake_api.base_url, retry=RetryPolicy(max_retries=0)
    )
    yield made
    await made.aclose()


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool], request: pytest.FixtureRequest):
    """The plugin's `snap_compare`, which on a mismatch also prints the rows that differ:
    the HTML report stays on the machine that ran the test, the output reaches us."""

    def compare(app: Any, **options: Any) -> bool:
        matched = snap_compare(app, **options)
        if not matched:
            _result, expected, actual, *_ = pickle.loads(
                node_to_report_path(request.node).read_bytes()
            )
            print(screen_diff(expected or "", actual or ""))
        return matched

    return compare
