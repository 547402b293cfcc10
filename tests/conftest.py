"""Shared fixtures: every test runs with its own AGENTCLI_HOME and HOME."""

from __future__ import annotations

import pytest

from agentcli.config import credentials
from tests.fakeapi.fixtures import fake_api  # noqa: F401  (re-exported fixture)
from tests.fakeopenai.fixtures import fake_openai  # noqa: F401  (re-exported fixture)
from tests.mcp.everything import needs_everything, needs_filesystem  # noqa: F401  (re-exported)
from tests.sandbox_support import needs_bwrap  # noqa: F401  (re-exported fixture)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTCLI_HOME", str(home / ".agentcli"))
    for name in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "AGENTCLI_MODEL",
        # How patient agentcli is with the API: a developer's own settings must not leak in.
        "AGENTCLI_MAX_RETRIES",
        "AGENTCLI_RETRY_BASE_DELAY_MS",
        "AGENTCLI_RETRY_MAX_TOTAL_MS",
        "AGENTCLI_STREAM_IDLE_TIMEOUT_MS",
        "API_TIMEOUT_MS",
        "MCP_TIMEOUT",
        "MCP_TOOL_TIMEOUT",
        "MCP_CONNECT_TIMEOUT_MS",
    ):
        monkeypatch.delenv(name, raising=False)
    # Keys a provider's settings took out of the environment (config/credentials.py)
    # are process-wide: each test starts without any an earlier one left.
    monkeypatch.setattr(credentials, "_kept", {})
    return home
