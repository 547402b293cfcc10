"""Shared fixtures: every test runs with its own AGENTCLI_HOME and HOME, and the tiers.

A test's tier marks (pty, snapshot, subprocess, slow) come from tests/support/tiers.py;
a test that starts a process without a process mark fails (so the fast tier stays fast).
"""

from __future__ import annotations

import pytest

from agentcli.config import credentials
from tests.fakeapi.fixtures import fake_api  # noqa: F401  (re-exported fixture)
from tests.fakeopenai.fixtures import fake_openai  # noqa: F401  (re-exported fixture)
from tests.mcp.everything import needs_everything, needs_filesystem  # noqa: F401  (re-exported)
from tests.sandbox_support import needs_bwrap  # noqa: F401  (re-exported fixture)
from tests.support import tiers
from tests.support.bytecode import keep_bytecode
from tests.support.escaped_children import escaped_children  # noqa: F401  (re-exported fixture)
from tests.support.pilot_settle import use_fine_settle_step
from tests.support.projects import project  # noqa: F401  (re-exported fixture)


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
        # Claude Code's settings files are read beside agentcli's: the developer's stay out.
        "CLAUDE_CONFIG_DIR",
        "AGENTCLI_IGNORE_CLAUDE_SETTINGS",
    ):
        monkeypatch.delenv(name, raising=False)
    # Keys a provider's settings took out of the environment (config/credentials.py)
    # are process-wide: each test starts without any an earlier one left.
    monkeypatch.setattr(credentials, "_kept", {})
    return home


keep_bytecode()  # before the workers start: they and every process they run keep theirs
use_fine_settle_step()

_processes = tiers.ProcessGuard()
_processes.install()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tiers.mark_tiers(items)  # before `-m` selects by them
    tiers.slowest_tiers_first(items)  # the long tests start early, not last (xdist)


def pytest_collection_finish(session: pytest.Session) -> None:
    # No process test in this run (the fast tier): a process from any thread is this test's.
    _processes.every_thread = not any(tiers.may_start_processes(item) for item in session.items)


@pytest.fixture(autouse=True)
def processes_only_where_marked(request: pytest.FixtureRequest):
    """Fails a test that starts a process but is not marked `subprocess` or `pty`."""
    if tiers.may_start_processes(request.node):
        yield
        return
    _processes.watch()
    try:
        yield
    finally:
        started = _processes.stop()
    if started:
        pytest.fail(tiers.unmarked_message(request.node, started), pytrace=False)
