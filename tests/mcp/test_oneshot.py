"""What -p says about its MCP servers (mcp/oneshot.py) and how long it waits (timeouts.py)."""

from __future__ import annotations

from agentcli.mcp.oneshot import startup_warnings
from agentcli.mcp.status import ServerStatus
from agentcli.mcp.timeouts import McpTimeouts


def status(name: str, state, error: str | None = None) -> ServerStatus:
    return ServerStatus(name, "project", "stdio", state, error)


def test_the_connect_wait_defaults_to_five_seconds_and_never_exceeds_the_start_up_timeout():
    assert McpTimeouts.from_env({}).connect_wait_s == 5.0
    assert McpTimeouts.from_env({"MCP_CONNECT_TIMEOUT_MS": "250"}).connect_wait_s == 0.25
    capped = McpTimeouts.from_env({"MCP_CONNECT_TIMEOUT_MS": "60000", "MCP_TIMEOUT": "2000"})
    assert capped.connect_wait_s == 2.0


def test_a_malformed_connect_wait_is_said_and_the_default_used():
    timeouts = McpTimeouts.from_env({"MCP_CONNECT_TIMEOUT_MS": "soon"})

    assert timeouts.connect_wait_s == 5.0
    assert timeouts.problems == (
        "MCP_CONNECT_TIMEOUT_MS='soon' is not a number of milliseconds above 0; using 5000",
    )


def test_each_server_that_will_not_help_is_said_and_the_unapproved_ones_together():
    lines = startup_warnings(
        [
            status("ok", "connected"),
            status("broken", "failed", "exited with status 1"),
            status("slow", "pending"),
            status("github", "needs approval"),
            status("off", "disabled"),
            status("db", "needs approval"),
        ],
        waited_s=5,
        startup_s=30,
    )

    broken, slow, unapproved = lines
    assert broken == "warning: MCP server broken failed: exited with status 1"
    assert slow.startswith("warning: MCP server slow is still starting after 5 s")
    assert "30 s, MCP_TIMEOUT" in slow
    assert "servers github, db, not approved here" in unapproved
    assert '"enabledMcpjsonServers": ["github", "db"]' in unapproved


def test_nothing_is_said_when_every_server_is_connected():
    assert startup_warnings([status("ok", "connected")], 5, 30) == []
