"""Permission rules on MCP tools, as Claude Code has them, and the default: ask."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentcli.config.rules import Rule, RuleSyntaxError, parse_tool_list
from agentcli.mcp.tools import McpTool, ToolSpec
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import ToolResult, Workspace


class _NeverCalled:
    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        raise AssertionError("a permission decision runs nothing")


def mcp_tool(server: str, tool: str, *, read_only: bool = False) -> McpTool:
    spec = ToolSpec(tool, "", {"type": "object"}, read_only=read_only)
    return McpTool(f"mcp__{server}__{tool}", server, spec, _NeverCalled())


def decide(tmp_path: Path, tool: McpTool, mode: str = "default", **rules: list[str]) -> str:
    policy = PermissionPolicy(
        Workspace(tmp_path),
        PermissionMode(mode),
        **{kind: parse_tool_list(texts, "test") for kind, texts in rules.items()},
    )
    inp = tool.input_model.model_validate({})
    return policy.decide(tool, inp).behavior


def test_an_mcp_tool_asks_by_default_even_when_it_says_it_only_reads(tmp_path):
    assert decide(tmp_path, mcp_tool("db", "query", read_only=True)) == "ask"
    assert decide(tmp_path, mcp_tool("db", "drop")) == "ask"
    assert decide(tmp_path, mcp_tool("db", "query", read_only=True), "acceptEdits") == "ask"


@pytest.mark.parametrize("rule", ["mcp__db", "mcp__db__*", "mcp__db__query"])
def test_a_server_rule_and_a_tool_rule_allow(tmp_path, rule):
    assert decide(tmp_path, mcp_tool("db", "query"), allow=[rule]) == "allow"


@pytest.mark.parametrize("rule", ["mcp__db__drop", "mcp__dbx", "mcp__d", "mcp__dbx__*"])
def test_a_rule_for_another_tool_or_server_does_not(tmp_path, rule):
    assert decide(tmp_path, mcp_tool("db", "query"), allow=[rule]) == "ask"


def test_deny_beats_allow_for_a_whole_server(tmp_path):
    tool = mcp_tool("db", "query")

    assert decide(tmp_path, tool, allow=["mcp__db__query"], deny=["mcp__db__*"]) == "deny"
    assert decide(tmp_path, tool, "bypassPermissions", deny=["mcp__db"]) == "deny"
    assert decide(tmp_path, tool, allow=["mcp__db"], ask=["mcp__db__query"]) == "ask"


def test_a_bare_deny_of_a_server_hides_its_tools(tmp_path):
    policy = PermissionPolicy(Workspace(tmp_path), deny=parse_tool_list(["mcp__db"], "test"))

    assert policy.hides("mcp__db__query") and policy.hides("mcp__db__drop")
    assert not policy.hides("mcp__dbx__query") and not policy.hides("Read")


def test_plan_mode_refuses_an_mcp_tool_that_may_change_things(tmp_path):
    assert decide(tmp_path, mcp_tool("db", "drop"), "plan") == "deny"
    assert decide(tmp_path, mcp_tool("db", "query", read_only=True), "plan") == "ask"


def test_the_wildcard_is_only_a_whole_servers():
    assert str(Rule.parse("mcp__db__*")) == "mcp__db__*"
    for text in ("Bash*", "mcp__db*", "mcp__*"):
        with pytest.raises(RuleSyntaxError):
            Rule.parse(text)
