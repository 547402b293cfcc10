"""`agentcli -p` and the MCP servers that will not help its run: said on stderr, never waited out.

A script that runs `agentcli -p` sees only stdout and stderr. A project
server nobody approved is named there with the ways to approve it; a server
that hangs at start-up is named as slow, and the run goes on after the
connect wait (MCP_CONNECT_TIMEOUT_MS) instead of waiting out MCP_TIMEOUT. In
stream-json's `system/init` the servers' statuses are the Agent SDK's words.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path

from tests.fakeapi import reply, text
from tests.integration.test_mcp_cli import agentcli
from tests.mcp.support import REPO, TEST_SERVER, tagged_processes

SDK_STATUSES = {"connected", "failed", "needs-auth", "pending", "disabled"}


def hung_server(tag: str) -> dict:
    """A stdio server that never answers `initialize` (and ends when its stdin closes)."""
    return {"command": sys.executable, "args": ["-c", "import sys; sys.stdin.read()", tag]}


def write_mcp_json(project: Path, servers: dict) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def approve_in_user_settings(names: list[str]) -> None:
    home = Path(os.environ["AGENTCLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"enabledMcpjsonServers": names}))


def init_line(stdout: str) -> dict:
    return json.loads(stdout.splitlines()[0])


def test_unapproved_project_servers_are_named_with_how_to_approve_them(fake_api, tmp_path):
    test_server = {"command": TEST_SERVER[0], "args": TEST_SERVER[1:]}
    write_mcp_json(tmp_path, {"github": test_server, "db": test_server})
    fake_api.enqueue(reply(text("Hi.")))

    done = agentcli(["-p", "hi", "--output-format", "stream-json"], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "not approved" in line]
    assert "github, db" in line
    for way in ("enabledMcpjsonServers", "enableAllProjectMcpServers", "agentcli mcp"):
        assert way in line
    statuses = init_line(done.stdout)["mcp_servers"]
    assert statuses == [
        {"name": "github", "status": "disabled"},
        {"name": "db", "status": "disabled"},
    ]


def test_a_hung_project_server_is_named_and_does_not_hold_up_the_run(fake_api, tmp_path):
    tag = uuid.uuid4().hex
    write_mcp_json(tmp_path, {"stuck": hung_server(tag)})
    approve_in_user_settings(["stuck"])
    fake_api.enqueue(reply(text("Answered without it.")))

    done = agentcli(
        ["-p", "hi", "--output-format", "stream-json"],
        tmp_path,
        fake_api,
        MCP_TIMEOUT="600000",  # ten minutes: waited out, the run would not end in this test
        MCP_CONNECT_TIMEOUT_MS="1000",
    )

    assert done.returncode == 0, done.stderr
    (slow,) = [line for line in done.stderr.splitlines() if "still starting" in line]
    assert "MCP server stuck" in slow and "1 s" in slow and "MCP_CONNECT_TIMEOUT_MS" in slow
    init = init_line(done.stdout)
    assert init["mcp_servers"] == [{"name": "stuck", "status": "pending"}]
    assert json.loads(done.stdout.splitlines()[-1])["result"] == "Answered without it."
    assert len(fake_api.requests) == 1
    assert tagged_processes(tag) == []  # the run's end ended it


def test_every_status_in_init_is_one_the_agent_sdk_knows(fake_api, tmp_path):
    test_server = {
        "command": TEST_SERVER[0],
        "args": TEST_SERVER[1:],
        "env": {"PYTHONPATH": str(REPO)},
    }
    broken = {"command": str(tmp_path / "no-such-server")}  # fails at once, whatever the load
    write_mcp_json(tmp_path, {"ok": test_server, "broken": broken, "waiting": test_server})
    approve_in_user_settings(["ok", "broken"])
    fake_api.enqueue(reply(text("Hi.")))

    done = agentcli(["-p", "hi", "--output-format", "stream-json"], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    statuses = {s["name"]: s["status"] for s in init_line(done.stdout)["mcp_servers"]}
    assert set(statuses.values()) <= SDK_STATUSES
    assert statuses["broken"] == "failed" and statuses["waiting"] == "disabled"
