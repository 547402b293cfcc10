"""A permission rule and a tool name agree on which MCP server they are about.

`mcp__<server>__<tool>` is read by splitting at the first `__` after `mcp__`, by
the rules and by the names the model calls. That is exact only for server names
that keep the split unambiguous, so a configured server whose name would not (it
holds `__`, ends with `_`, is too long for its tools' names to keep it whole, or
reads the same as another server's once cleaned) is refused at load, naming the
file and the server, and the other servers still load. The attack this stops: a
server `a__b` whose tool `mcp__a__b__t1` a rule `mcp__a__b` (read as tool `b` of
server `a`) did not cover, so it ran in bypass mode despite the deny.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.config.rules import Rule, RuleSyntaxError, mcp_server_of, parse_tool_list
from agentcli.mcp.config.names import MAX_SERVER, server_name_problem
from agentcli.mcp.config.servers import load_mcp_servers
from agentcli.mcp.names import api_names, clean
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import Workspace
from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli as plain_agentcli
from tests.integration.test_mcp_cli import agentcli, tool_result_of
from tests.mcp.support import REPO, TEST_SERVER
from tests.permissions.test_mcp_rules import decide, mcp_tool

SERVER = {"command": TEST_SERVER[0], "args": TEST_SERVER[1:], "env": {"PYTHONPATH": str(REPO)}}

REFUSED = ["a__b", "a_", "_", "x__", "__x", "a.__b", "a._b", "b_.", "a:_", "s" * (MAX_SERVER + 1)]
ACCEPTED = ["a", "a_b", "a-b", "_x", "-", "a.b", "A", "github", "s" * MAX_SERVER, "x-_y"]


def config_file(folder: Path, names: list[str]) -> Path:
    path = folder / "servers.json"
    path.write_text(json.dumps({"mcpServers": {name: SERVER for name in names}}))
    return path


@pytest.mark.parametrize("name", REFUSED)
def test_a_name_the_split_cannot_tell_apart_is_refused(name):
    assert server_name_problem(name) is not None


@pytest.mark.parametrize("name", ACCEPTED)
def test_a_name_the_split_tells_apart_is_kept(name):
    assert server_name_problem(name) is None


def test_every_accepted_server_is_the_one_its_tool_names_are_read_as():
    """Whatever the tools are called (`__` in them, long, cleaning the same): the
    server a rule reads from a tool's API name is its own, so every server rule
    speaks for exactly its tools."""
    tools = ["t", "b__t1", "__x", "_", "x" * 90, "a.b", "a_b", "__", "t__", "z" * 60 + "__q"]
    servers = [name for name in ACCEPTED if name != "a.b"]  # a.b and a_b read the same
    names = api_names((server, tool) for server in servers for tool in tools)

    assert len(set(names.values())) == len(names)
    for (server, _tool), name in names.items():
        assert mcp_server_of(name) == clean(server), (server, name)


def test_the_file_and_the_name_are_given_and_the_other_servers_load(tmp_path):
    path = config_file(tmp_path, ["ok", *REFUSED])

    loaded = load_mcp_servers(tmp_path, trusted=False, extra_files=[path], strict=True)

    assert list(loaded.servers) == ["ok"]
    assert len(loaded.problems) == len(REFUSED)
    for name, problem in zip(REFUSED, loaded.problems, strict=True):
        assert problem.startswith(f"{path}: MCP server {name!r}: ")
        assert problem.endswith("this server was skipped")


def test_two_servers_that_read_the_same_keep_only_the_one_named_as_it_reads(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    user = home / "settings.json"
    user.write_text(json.dumps({"mcpServers": {"my.server": SERVER, "x:y": SERVER}}))
    flags = tmp_path / "flags.json"
    flags.write_text(json.dumps({"mcpServers": {"my_server": SERVER, "x/y": SERVER}}))

    loaded = load_mcp_servers(tmp_path, trusted=False, extra_files=[flags])

    assert list(loaded.servers) == ["my_server"]
    problems = "\n".join(loaded.problems)
    assert f"{user}: MCP server 'my.server': " in problems and "'my_server'" in problems
    assert f"{user}: MCP server 'x:y': " in problems and f"{flags}: MCP server 'x/y': " in problems


@pytest.mark.parametrize("mode", ["default", "bypassPermissions", "acceptEdits"])
@pytest.mark.parametrize(
    ("kind", "rule", "expected"),
    [
        ("deny", "mcp__a", "deny"),
        ("deny", "mcp__a__*", "deny"),
        ("deny", "mcp__a__b__t1", "deny"),
        ("allow", "mcp__a__b__t1", "allow"),
        ("ask", "mcp__a__b__t1", "ask"),
    ],
)
def test_rules_on_a_tool_whose_own_name_holds_the_separator(tmp_path, mode, kind, rule, expected):
    """Server `a`'s tool `b__t1`: its server rules and its own name speak for it."""
    tool = mcp_tool("a", "b__t1")
    if mode == "bypassPermissions" and kind != "deny":
        expected = "allow"
    assert decide(tmp_path, tool, mode, **{kind: [rule]}) == expected


@pytest.mark.parametrize("rule", ["mcp__a__b", "mcp__a_", "mcp__a_b__t1", "mcp__a__b__t"])
def test_a_rule_for_another_tool_or_server_does_not_reach_it(tmp_path, rule):
    tool = mcp_tool("a", "b__t1")
    assert decide(tmp_path, tool, "default", allow=[rule]) == "ask"
    assert decide(tmp_path, tool, "bypassPermissions", deny=[rule]) == "allow"


def test_a_server_wildcard_for_a_name_no_server_can_have_is_a_syntax_error():
    with pytest.raises(RuleSyntaxError, match="no `__`"):
        Rule.parse("mcp__a__b__*")


def test_a_server_rule_does_not_reach_a_server_whose_name_starts_the_same(tmp_path):
    policy = PermissionPolicy(
        Workspace(tmp_path), PermissionMode.BYPASS, deny=parse_tool_list(["mcp__a"], "t")
    )
    assert policy.hides("mcp__a__b__t1")
    assert not policy.hides("mcp__a_b__t1") and not policy.hides("mcp__a-b__t1")
    assert decide(tmp_path, mcp_tool("a_b", "t1"), "default", allow=["mcp__a"]) == "ask"


@pytest.mark.parametrize("names", [["a__b"], ["a", "a__b"]])
def test_the_issues_bypass_a_server_with_the_separator_in_its_name_does_not_run(
    fake_api, tmp_path, names
):
    """`--disallowedTools mcp__a__b` in bypass mode: `a__b`'s echo must not run."""
    config = config_file(tmp_path, names)
    fake_api.enqueue(reply(tool_use("mcp__a__b__echo", {"text": "RAN"})))
    fake_api.enqueue(reply(text("Done.")))
    args = ["-p", "echo", "--mcp-config", str(config), "--strict-mcp-config"]
    bypass = ["--permission-mode", "bypassPermissions", "--disallowedTools", "mcp__a__b"]

    done = agentcli([*args, *bypass], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    offered = [tool["name"] for tool in fake_api.requests[0].body["tools"]]
    assert not [name for name in offered if name.startswith("mcp__a__b__")]
    if names == ["a", "a__b"]:
        assert "mcp__a__echo" in offered  # server `a` starts, its tools are offered
    result = tool_result_of(fake_api.requests[1].body)
    assert result["is_error"] is True and "RAN" not in json.dumps(result["content"])
    assert f"{config}: MCP server 'a__b': " in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["a__b", "a_"])
def test_mcp_add_refuses_the_name_before_writing_a_file(tmp_path, name):
    done = plain_agentcli(["mcp", "add", "--scope", "project", name, "--", "true"], tmp_path)

    assert done.returncode != 0
    assert f"invalid server name {name!r}" in done.stderr and "rename it" in done.stderr
    assert not (tmp_path / ".mcp.json").exists()
