"""`agentcli mcp ...` run as a real subprocess on temporary projects and homes."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from agentcli.config.mcp_servers import load_mcp_servers
from agentcli.config.paths import agentcli_home
from agentcli.config.trust import remember
from tests.integration.test_headless_cli import agentcli


def mcp(project: Path, *args: str):
    return agentcli(["mcp", *args], project, key=False)


def read(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root.resolve()


def local_file(project: Path) -> Path:
    return project / ".agentcli" / "settings.local.json"


def user_file() -> Path:
    return agentcli_home() / "settings.json"


def test_add_a_stdio_server_to_the_local_scope(project):
    done = mcp(
        project,
        "add",
        "-e",
        "API_KEY=${KEY:-x}",
        "--env",
        "MODE=a=b",
        "db",
        "--",
        "npx",
        "-y",
        "db-mcp",
        "--port",
        "5432",
    )
    assert done.returncode == 0, done.stderr
    assert f"Added MCP server db to the local scope ({local_file(project)})" in done.stdout
    assert read(local_file(project)) == {
        "mcpServers": {
            "db": {
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "db-mcp", "--port", "5432"],
                "env": {"API_KEY": "${KEY:-x}", "MODE": "a=b"},
            }
        }
    }


def test_add_keeps_the_other_keys_of_a_settings_file(project):
    local_file(project).parent.mkdir()
    local_file(project).write_text('{"permissions": {"allow": ["Read"]}, "model": "m"}')
    assert mcp(project, "add", "srv", "run-it").returncode == 0
    data = read(local_file(project))
    assert data["permissions"] == {"allow": ["Read"]} and data["model"] == "m"
    assert list(data["mcpServers"]) == ["srv"]


def test_add_to_the_user_scope_writes_a_private_file(project):
    user_file().parent.mkdir(parents=True)
    user_file().write_text('{"theme": "dark"}')
    done = mcp(
        project,
        "add",
        "--scope",
        "user",
        "-t",
        "sse",
        "-H",
        "X-Key:  abc ",
        "ev",
        "https://ev.example/sse",
    )
    assert done.returncode == 0, done.stderr
    assert read(user_file()) == {
        "theme": "dark",
        "mcpServers": {
            "ev": {"type": "sse", "url": "https://ev.example/sse", "headers": {"X-Key": "abc"}}
        },
    }
    assert stat.S_IMODE(user_file().stat().st_mode) == 0o600


def test_add_to_the_project_scope_writes_mcp_json_and_approves_it_for_you(project, monkeypatch):
    monkeypatch.setenv("TOKEN", "t")
    done = mcp(
        project,
        "add",
        "-s",
        "project",
        "--transport",
        "http",
        "-H",
        "Authorization: Bearer ${TOKEN}",
        "api",
        "https://mcp.example/mcp",
    )
    assert done.returncode == 0, done.stderr
    assert read(project / ".mcp.json") == {
        "mcpServers": {
            "api": {
                "type": "http",
                "url": "https://mcp.example/mcp",
                "headers": {"Authorization": "Bearer ${TOKEN}"},
            }
        }
    }
    assert "not trusted" in done.stdout  # said once, since nothing starts until it is
    loaded = load_mcp_servers(project, trusted=True)
    assert loaded.servers["api"].approved


def test_add_json_takes_an_entry_as_claude_code_does(project):
    entry = {"type": "http", "url": "https://w.example/mcp", "timeout": 5}
    done = mcp(project, "add-json", "-s", "project", "web", json.dumps(entry))
    assert done.returncode == 0, done.stderr
    assert read(project / ".mcp.json") == {"mcpServers": {"web": entry}}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add-json", "w", "{oops"], "agentcli mcp: the JSON is not valid"),
        (["add-json", "w", "[1]"], "agentcli mcp: the JSON must be one server entry"),
        (["add-json", "w", '{"type": "ws", "url": "ws://x"}'], "unknown transport 'ws'"),
        (["add", "-t", "http", "w", "mcp.example"], "url: must start with http:// or https://"),
        (["add", "-t", "http", "w", "https://x", "-H", "A: b"], "options go before the name"),
        (["add", "-H", "A: b", "w", "cmd"], "-H/--header is for http and sse servers"),
        (["add", "-t", "sse", "-e", "A=b", "w", "https://x"], "-e/--env is for stdio servers"),
        (["add", "-e", "NOVALUE", "w", "cmd"], "-e/--env expects KEY=VALUE, got 'NOVALUE'"),
        (["add", "-t", "http", "-H", "NoColon", "w", "https://x"], "-H/--header expects"),
        (["add", "my server", "cmd"], "invalid server name 'my server'"),
        (["add", "-s", "team", "w", "cmd"], "argument -s/--scope: invalid choice: 'team'"),
        (["add", "w"], "the following arguments are required: COMMAND_OR_URL"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_input_is_refused_with_exit_1_and_nothing_written(project, args, message):
    done = mcp(project, *args)
    assert done.returncode == 1
    assert message in done.stderr
    assert done.stdout == ""
    assert list(project.iterdir()) == []
    assert not user_file().exists()


@pytest.mark.parametrize("scope", ["local", "project", "user"])
def test_a_broken_file_is_refused_and_left_exactly_as_it_was(project, scope):
    path = {"local": local_file(project), "project": project / ".mcp.json", "user": user_file()}[
        scope
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    broken = '{"mcpServers": {"a": {"command": "x"},}, "model": "keep me"}'
    path.write_text(broken)
    done = mcp(project, "add", "-s", scope, "b", "cmd")
    assert done.returncode == 1
    assert f"agentcli mcp: {path}: invalid JSON at line 1" in done.stderr
    assert "fix the file first (it was left as it is)" in done.stderr
    assert path.read_text() == broken


def test_servers_that_is_not_an_object_is_refused_too(project):
    (project / ".mcp.json").write_text('{"mcpServers": ["x"]}')
    done = mcp(project, "add", "-s", "project", "b", "cmd")
    assert done.returncode == 1
    assert "mcpServers is not an object of servers by name" in done.stderr
    assert (project / ".mcp.json").read_text() == '{"mcpServers": ["x"]}'


def test_adding_a_name_taken_in_that_scope_is_refused(project):
    assert mcp(project, "add", "db", "first").returncode == 0
    before = local_file(project).read_text()
    done = mcp(project, "add", "db", "second")
    assert done.returncode == 1
    assert "an MCP server named 'db' is already in the local scope" in done.stderr
    assert local_file(project).read_text() == before
    assert mcp(project, "add", "-s", "user", "db", "elsewhere").returncode == 0


def _three_scopes(project: Path) -> None:
    for args in (
        ["add", "-s", "user", "shared", "user-cmd"],
        ["add", "-s", "user", "mine", "mine-cmd", "--flag"],
        ["add", "-s", "project", "shared", "project-cmd"],
        ["add", "-s", "project", "-t", "http", "web", "https://w.example/mcp"],
        ["add", "-s", "local", "db", "db-cmd"],
    ):
        assert mcp(project, *args).returncode == 0


def test_list_shows_every_server_with_its_scope_and_status(project):
    _three_scopes(project)
    remember(project, True)
    (project / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    **read(project / ".mcp.json")["mcpServers"],
                    "teammate": {"command": "their-cmd"},
                }
            }
        )
    )
    done = mcp(project, "list")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "shared: user-cmd  [user, overridden by project]",
        "mine: mine-cmd --flag  [user, in use]",
        "shared: project-cmd  [project, in use]",
        "web: https://w.example/mcp (http)  [project, in use]",
        "teammate: their-cmd  [project, waiting for approval]",
        "db: db-cmd  [local, in use]",
    ]


def test_list_in_a_folder_not_trusted_says_so(project):
    _three_scopes(project)
    done = mcp(project, "list")
    assert "db: db-cmd  [local, not used: this folder is not trusted]" in done.stdout
    assert "This folder is not trusted" in done.stdout


def test_list_reports_problems_on_stderr_and_exits_1(project):
    (project / ".mcp.json").write_text(
        '{"mcpServers": {"ok": {"command": "x"}, "bad": {"type": "ws"}}}'
    )
    remember(project, True)
    done = mcp(project, "list")
    assert done.returncode == 1
    assert "ok: x  [project, waiting for approval]" in done.stdout
    assert f"{project / '.mcp.json'}: MCP server 'bad': unknown transport 'ws'" in done.stderr


def test_list_with_nothing_configured(project):
    done = mcp(project, "list")
    assert done.returncode == 0
    assert "No MCP servers configured" in done.stdout


def test_get_shows_one_server_highest_scope_first(project):
    _three_scopes(project)
    remember(project, True)
    done = mcp(project, "get", "shared")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n\n")[0].splitlines() == [
        "shared:",
        f"  Scope: project ({project / '.mcp.json'})",
        "  Status: in use",
        "  Type: stdio",
        "  Command: project-cmd",
        "  Args: (none)",
    ]
    assert f"  Scope: user ({user_file()})" in done.stdout
    web = mcp(project, "get", "web").stdout
    assert "  Type: http\n  URL: https://w.example/mcp\n" in web


def test_get_an_unknown_or_broken_server_exits_1(project):
    assert "no usable MCP server named 'nope'" in mcp(project, "get", "nope").stderr
    local_file(project).parent.mkdir()
    local_file(project).write_text('{"mcpServers": {"bad": {"command": ""}}}')
    done = mcp(project, "get", "bad")
    assert done.returncode == 1
    assert "command (line 1, column 25): String should have at least 1 character" in done.stderr


def test_remove_from_the_only_scope_that_has_it(project):
    _three_scopes(project)
    done = mcp(project, "remove", "db")
    assert done.returncode == 0, done.stderr
    assert "Removed MCP server db from the local scope" in done.stdout
    assert read(local_file(project)) == {"mcpServers": {}}


def test_remove_an_ambiguous_name_asks_for_the_scope(project):
    _three_scopes(project)
    before = (project / ".mcp.json").read_text(), user_file().read_text()
    done = mcp(project, "remove", "shared")
    assert done.returncode == 1
    assert "'shared' is in several scopes (project, user): say which with --scope" in done.stderr
    assert ((project / ".mcp.json").read_text(), user_file().read_text()) == before
    assert mcp(project, "remove", "-s", "user", "shared").returncode == 0
    assert "shared" not in read(user_file())["mcpServers"]
    assert "shared" in read(project / ".mcp.json")["mcpServers"]


def test_remove_a_name_that_is_nowhere_exits_1(project):
    done = mcp(project, "remove", "ghost")
    assert done.returncode == 1
    assert "no MCP server named 'ghost' in any scope" in done.stderr
    done = mcp(project, "remove", "-s", "user", "ghost")
    assert done.returncode == 1
    assert "no MCP server named 'ghost' in the user scope" in done.stderr


def test_remove_takes_out_a_broken_entry_too(project):
    local_file(project).parent.mkdir()
    local_file(project).write_text('{"mcpServers": {"bad": {"type": "ws"}}, "model": "m"}')
    assert mcp(project, "remove", "bad").returncode == 0
    assert read(local_file(project)) == {"mcpServers": {}, "model": "m"}


def test_what_a_file_says_cannot_drive_the_terminal(project):
    evil = "\x1b]0;pwned\x07\x1b[2J"
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"x": {"command": f"run{evil}", "args": ["a\nb"]}}})
    )
    done = mcp(project, "list")
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert done.stdout.startswith("x: ")
    assert "\\n" in done.stdout.splitlines()[0]


def test_reset_project_choices_asks_again(project):
    assert mcp(project, "add", "-s", "project", "srv", "cmd").returncode == 0
    assert load_mcp_servers(project, trusted=True).servers["srv"].approved
    done = mcp(project, "reset-project-choices")
    assert done.returncode == 0, done.stderr
    assert not load_mcp_servers(project, trusted=True).servers["srv"].approved
