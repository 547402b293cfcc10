"""Snapshots of the MCP screens: the start-up question and `/mcp`.

Only what holds still is pictured: servers that never run (waiting for approval,
disabled) and one whose command fails at once with a fixed message, so no path of
this machine and no timing shows. Update with `--snapshot-update` and
look at the report before committing the new SVGs.
"""

from __future__ import annotations

import socket
from pathlib import Path

from agentcli.mcp.config.servers import ConfiguredServer
from agentcli.mcp.config.specs import HttpServer, StdioServer
from agentcli.mcp.manager import McpManager, load_sdk
from tests.engine.scripted import ScriptedProvider
from tests.frontends.tui.helpers import send, wait_for
from tests.frontends.tui.mcp_support import mcp_app
from tests.mcp.support import servers, state_of

SIZE = (100, 36)
PROJECT = Path("/project")  # shown in the banner; a fixed path keeps snapshots stable


def project_server(name: str, command: str, *args: str, **env: str) -> ConfiguredServer:
    spec = StdioServer(command=command, args=list(args), env=env)
    return ConfiguredServer(name, spec, "project", "/project/.mcp.json", False)


def test_the_question_about_new_project_servers(snap_compare, tmp_path):
    manager = McpManager(
        servers(
            project_server("db", "npx", "-y", "@acme/db-mcp", "--read-only", DB_TOKEN="s3cret"),
            project_server("tickets", "uvx", "tickets-mcp"),
        ),
        startup_timeout_s=30,
        tool_timeout_s=30,
    )
    app = mcp_app(ScriptedProvider(), tmp_path, manager, cwd=PROJECT, cursor_blink=False)

    async def run_before(pilot):
        await wait_for(pilot, lambda: app.screen is not app.screen_stack[0], "the question")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_mcp_screen(snap_compare, tmp_path):
    load_sdk()
    failing = StdioServer(command="sh", args=["-c", "echo 'no config at ~/.tickets' >&2; exit 1"])
    silent = socket.create_server(("127.0.0.1", 0))  # takes the connection, never answers
    port = silent.getsockname()[1]
    search = HttpServer(
        type="http", url=f"http://127.0.0.1:{port}/mcp", headers={"Authorization": "Bearer x"}
    )
    manager = McpManager(
        servers(
            ConfiguredServer(
                "tickets", failing, "local", "/project/.agentcli/settings.local.json", True
            ),
            ConfiguredServer("search", search, "user", "~/.agentcli/settings.json", True),
            project_server("db", "npx", "-y", "@acme/db-mcp"),
        ),
        startup_timeout_s=30,
        tool_timeout_s=30,
    )
    app = mcp_app(ScriptedProvider(), tmp_path, manager, cwd=PROJECT, cursor_blink=False)

    async def run_before(pilot):
        await wait_for(pilot, lambda: app.screen is not app.screen_stack[0], "the question")
        await wait_for(pilot, lambda: state_of(manager, "tickets").state == "failed", "failure")
        await manager.disable("search")  # still connecting: it never fails
        await pilot.press("escape")  # (the app started the servers before it asked)
        await send(pilot, "/mcp")
        await wait_for(pilot, lambda: app.screen is not app.screen_stack[0], "/mcp")
        await pilot.pause()

    with silent:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
