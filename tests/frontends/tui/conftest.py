"""Fixtures for the UI tests: `mcp_manager` makes real MCP managers (tests/mcp/conftest.py);
`fake_api_provider` is the Anthropic provider on the fake Messages API, for tests that
play a session for real."""

from __future__ import annotations

import pytest

from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from tests.mcp.conftest import mcp_manager  # noqa: F401  (re-exported fixture)


@pytest.fixture
async def fake_api_provider(fake_api):
    made = AnthropicProvider(
        api_key="test-key", base_url=fake_api.base_url, retry=RetryPolicy(max_retries=0)
    )
    yield made
    await made.aclose()
