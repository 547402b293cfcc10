"""MCP server configuration: sources and their order, trust, expansion, problems."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentcli.config.settings import load_settings
from agentcli.mcp.config.servers import load_mcp_servers
from agentcli.mcp.config.specs import HttpServer, SseServer, StdioServer
from agentcli.wiring.bootstrap import Options, project_withheld, settings_for


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def user_file() -> Path:
    return Path(os.environ["AGENTCLI_HOME"]) / "settings.json"


def local_file(project: Path) -> Path:
    return project / ".agentcli" / "settings.local.json"


def servers(*entries: tuple[str, dict]) -> dict:
    return {"mcpServers": dict(entries)}


def test_every_transport_loads_from_mcp_json(project):
    _write(
        project / ".mcp.json",
        servers(
            ("files", {"command": "npx", "args": ["-y", "fs"], "env": {"ROOT": "/srv"}}),
            ("typed", {"type": "stdio", "command": "srv"}),
            ("api", {"type": "http", "url": "https://mcp.example/mcp", "headers": {"X": "1"}}),
            ("events", {"type": "sse", "url": "http://localhost:9/sse"}),
        ),
    )
    loaded = load_mcp_servers(project, trusted=True)
    assert loaded.problems == []
    assert list(loaded.servers) == ["files", "typed", "api", "events"]
    files = loaded.servers["files"]
    assert files.spec == StdioServer(command="npx", args=["-y", "fs"], env={"ROOT": "/srv"})
    assert (files.scope, files.source) == ("project", str(project / ".mcp.json"))
    assert loaded.servers["api"].spec == HttpServer(
        type="http", url="https://mcp.example/mcp", headers={"X": "1"}
    )
    assert isinstance(loaded.servers["events"].spec, SseServer)
    assert not any(server.approved for server in loaded.servers.values())


def test_later_sources_win_on_the_same_name(project, tmp_path):
    _write(user_file(), servers(("a", {"command": "user"}), ("u", {"command": "user-only"})))
    _write(project / ".mcp.json", servers(("a", {"command": "project"}), ("b", {"command": "p"})))
    _write(local_file(project), servers(("b", {"command": "local"}), ("c", {"command": "local"})))
    extra = _write(tmp_path / "extra.json", servers(("c", {"command": "cli"})))
    loaded = load_mcp_servers(project, trusted=True, extra_files=[extra])
    assert loaded.problems == []
    got = {name: (s.spec.command, s.scope, s.approved) for name, s in loaded.servers.items()}
    assert got == {
        "a": ("project", "project", False),
        "u": ("user-only", "user", True),
        "b": ("local", "local", True),
        "c": ("cli", "command line", True),
    }
    assert loaded.servers["c"].source == str(extra)
    assert loaded.servers["u"].source == str(user_file())


def test_an_untrusted_folder_reads_neither_mcp_json_nor_the_local_servers(project):
    _write(project / ".mcp.json", "{not json")  # were it read, this would be a problem
    _write(local_file(project), servers(("local", {"command": "planted"})))
    _write(user_file(), servers(("mine", {"command": "mine"})))
    loaded = load_mcp_servers(project, trusted=False)
    assert loaded.problems == []
    assert list(loaded.servers) == ["mine"]


def test_strict_uses_only_the_files_given(project, tmp_path):
    _write(user_file(), servers(("mine", {"command": "mine"})))
    _write(project / ".mcp.json", servers(("shared", {"command": "s"})))
    extra = _write(tmp_path / "only.json", servers(("only", {"command": "o"})))
    loaded = load_mcp_servers(project, trusted=True, extra_files=[extra], strict=True)
    assert list(loaded.servers) == ["only"]


def test_a_missing_command_line_file_is_a_problem(project, tmp_path):
    missing = tmp_path / "nope.json"
    loaded = load_mcp_servers(project, trusted=True, extra_files=[missing])
    assert loaded.problems == [f"{missing}: file not found; its MCP servers were skipped"]


def test_variables_expand_in_command_args_env_url_and_headers(project, monkeypatch):
    monkeypatch.setenv("TOOL_BIN", "/opt/tool")
    monkeypatch.setenv("TOKEN", "s3cret")
    monkeypatch.setenv("EMPTY", "")
    monkeypatch.delenv("UNSET_PORT", raising=False)
    _write(
        project / ".mcp.json",
        servers(
            (
                "local",
                {
                    "command": "${TOOL_BIN}/run",
                    "args": ["--port", "${UNSET_PORT:-8080}", "--mode=${EMPTY:-fast}", "$TOKEN"],
                    "env": {"${TOKEN}": "${TOKEN}", "EMPTY": "${EMPTY}"},
                },
            ),
            (
                "remote",
                {
                    "type": "http",
                    "url": "${BASE:-https://mcp.example}/mcp",
                    "headers": {"Authorization": "Bearer ${TOKEN}"},
                },
            ),
        ),
    )
    loaded = load_mcp_servers(project, trusted=True)
    assert loaded.problems == []
    local = loaded.servers["local"].spec
    assert isinstance(local, StdioServer)
    assert local.command == "/opt/tool/run"
    assert local.args == ["--port", "8080", "--mode=fast", "$TOKEN"]  # only ${...} expands
    assert local.env == {"${TOKEN}": "s3cret", "EMPTY": ""}  # keys stay as written
    remote = loaded.servers["remote"].spec
    assert isinstance(remote, HttpServer)
    assert remote.url == "https://mcp.example/mcp"
    assert remote.headers == {"Authorization": "Bearer s3cret"}


def test_a_missing_variable_leaves_that_server_out_with_a_clear_problem(project, monkeypatch):
    monkeypatch.delenv("NO_SUCH_TOKEN", raising=False)
    monkeypatch.delenv("NO_SUCH_HOST", raising=False)
    path = _write(
        user_file(),
        servers(
            (
                "needs",
                {
                    "type": "sse",
                    "url": "https://${NO_SUCH_HOST}/sse",
                    "headers": {"A": "${NO_SUCH_TOKEN}"},
                },
            ),
            ("fine", {"command": "ok"}),
        ),
    )
    loaded = load_mcp_servers(project, trusted=True)
    assert list(loaded.servers) == ["fine"]
    assert loaded.problems == [
        f"{path}: MCP server 'needs': environment variables NO_SUCH_HOST, NO_SUCH_TOKEN not "
        "set (set it, or write ${NO_SUCH_HOST:-default} for a default); this server was skipped"
    ]


def test_an_expanded_url_must_still_be_an_address(project, monkeypatch):
    monkeypatch.setenv("HOST", "localhost:3000")
    _write(user_file(), servers(("r", {"type": "http", "url": "${HOST}/mcp"})))
    loaded = load_mcp_servers(project, trusted=True)
    assert loaded.servers == {}
    assert (
        "MCP server 'r': url 'localhost:3000/mcp' (expanded) must start with http://"
        in (loaded.problems[0])
    )


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            {"type": "ws", "url": "ws://x"},
            "unknown transport 'ws' (line 7, column 7) (expected stdio, http or sse)",
        ),
        ({"url": "https://x"}, 'has a url but no "type": add "type": "http" (or "sse")'),
        ({"args": ["x"]}, "command is missing"),
        (
            {"command": "x", "args": "--flag"},
            "args (line 8, column 7): Input should be a valid list (found '--flag')",
        ),
        ({"command": "x", "env": {"N": 1}}, "env.N (line 9, column 9): Input should be a valid"),
        ({"type": "http", "url": "mcp.example"}, "url (line 8, column 7): must start with http"),
        ({"type": "sse"}, "url is missing"),
        ("npx server", "expected an object, found a string"),
    ],
)
def test_a_broken_entry_is_one_line_naming_file_and_server_and_the_rest_load(
    project, entry, expected
):
    path = _write(
        project / ".mcp.json",
        {"mcpServers": {"good": {"command": "ok"}, "bad": entry, "also": {"command": "ok"}}},
    )
    loaded = load_mcp_servers(project, trusted=True)
    assert list(loaded.servers) == ["good", "also"]
    [problem] = loaded.problems
    assert problem.startswith(f"{path}: MCP server 'bad': ")
    assert expected in problem
    assert problem.endswith("; this server was skipped")
    assert "\n" not in problem


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            '{"mcpServers": {"a": {"command": "x"},}}',
            "invalid JSON at line 1, column 39: Expecting property name",
        ),
        ('["mcpServers"]', "expected a JSON object, found list"),
        (
            '{"mcpServers": ["a"]}',
            "mcpServers (line 1, column 2) must be an object of servers by name",
        ),
    ],
)
def test_a_broken_file_is_one_problem_and_other_files_still_load(project, content, expected):
    path = _write(project / ".mcp.json", content)
    _write(user_file(), servers(("mine", {"command": "mine"})))
    loaded = load_mcp_servers(project, trusted=True)
    assert list(loaded.servers) == ["mine"]
    [problem] = loaded.problems
    assert problem.startswith(f"{path}: {expected}")
    assert problem.endswith("; its MCP servers were skipped")


def test_the_settings_files_accept_the_mcp_keys(project):
    _write(
        user_file(),
        {
            "mcpServers": {"mine": {"command": "x"}},
            "enabledMcpjsonServers": ["a"],
            "disabledMcpjsonServers": ["b"],
            "enableAllProjectMcpServers": False,
        },
    )
    _write(local_file(project), {"mcpServers": {"bad": {"type": "ws"}}})
    settings = load_settings(project)
    assert settings.problems == []  # a bad server is the MCP loader's problem, not the file's
    assert (
        load_mcp_servers(project, trusted=True)
        .problems[0]
        .startswith(f"{local_file(project)}: MCP server 'bad': unknown transport 'ws'")
    )


def test_an_untrusted_project_file_lists_its_servers_but_not_its_refusals(project):
    _write(
        project / ".agentcli" / "settings.json",
        {"mcpServers": {"x": {"command": "run-me"}}, "disabledMcpjsonServers": ["y"]},
    )
    withheld = load_settings(project, trusted=False).withheld
    assert [item.key for item in withheld] == ["mcpServers"]
    assert "run-me" in withheld[0].value


def test_an_untrusted_folders_mcp_json_is_something_trusting_would_enable(project):
    """A cloned repository whose only agentcli file is `.mcp.json`: its servers are what
    the trust question must list (else nothing is asked, and they never start)."""
    from agentcli.config.trust_question import trust_question

    _write(
        project / ".mcp.json",
        servers(
            ("db", {"command": "run-db", "args": ["--port", "5432"]}),
            ("api", {"type": "http", "url": "https://mcp.example/mcp"}),
        ),
    )
    expected = [
        ("mcpServers", "db: run-db --port 5432", project / ".mcp.json"),
        ("mcpServers", "api: https://mcp.example/mcp", project / ".mcp.json"),
    ]
    asked = trust_question(settings_for(Options(project, trusted=False)), project)
    assert [(item.key, item.value, item.path) for item in asked] == expected
    # /trust asks about the same, whatever the session started with
    assert [(item.key, item.value, item.path) for item in project_withheld(project)] == expected
    assert settings_for(Options(project, trusted=True)).withheld == []


def test_the_servers_shown_for_trust_are_what_would_run_in_full(project):
    """A server's command with a carriage return or an escape sequence in it is shown
    escaped, so the question shows what would run, not what the terminal draws."""
    _write(project / ".mcp.json", servers(("db", {"command": "ok\rrm -rf ~", "args": ["\x1b[2K"]})))
    (item,) = project_withheld(project)
    assert item.value == "db: 'ok\\rrm -rf ~' '\\x1b[2K'"
    assert "\r" not in item.value and "\x1b" not in item.value
