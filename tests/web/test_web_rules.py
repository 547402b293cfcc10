"""Permission for WebFetch: rules name domains, the default asks per domain, and
"don't ask again" offers the domain. WebSearch is offered only where it may run."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.config.rules import parse_tool_list
from agentcli.permissions.gate import PermissionGate
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.permissions.web_rules import server_tool_decision
from agentcli.tools.base import Workspace
from agentcli.tools.web.fetch_tool import WebFetchTool


def policy(tmp_path: Path, mode: str = "default", **rules: list[str]) -> PermissionPolicy:
    return PermissionPolicy(
        Workspace(tmp_path),
        PermissionMode(mode),
        **{kind: parse_tool_list(texts, "test") for kind, texts in rules.items()},
    )


def decide(tmp_path: Path, url: str, mode: str = "default", **rules: list[str]) -> str:
    tool = WebFetchTool()
    inp = tool.input_model.model_validate({"url": url, "prompt": "?"})
    return policy(tmp_path, mode, **rules).decide(tool, inp).behavior


def test_a_fetch_asks_by_default_in_every_mode_but_bypass(tmp_path):
    for mode in ("default", "acceptEdits", "plan"):
        assert decide(tmp_path, "https://example.com/", mode) == "ask"
    assert decide(tmp_path, "http://127.0.0.1:8000/", "default") == "ask"  # loopback too
    assert decide(tmp_path, "https://example.com/", "bypassPermissions") == "allow"


@pytest.mark.parametrize(
    ("rule", "url", "expected"),
    [
        ("WebFetch(domain:example.com)", "https://example.com/docs", "allow"),
        ("WebFetch(domain:example.com)", "https://EXAMPLE.com./docs", "allow"),
        ("WebFetch(domain:example.com)", "https://docs.example.com/", "ask"),
        ("WebFetch(domain:example.com)", "https://example.com.evil.net/", "ask"),
        ("WebFetch(domain:example.com)", "https://evil.net/?u=https://example.com/", "ask"),
        ("WebFetch(domain:example.com)", "https://example.com@evil.net/", "ask"),
        ("WebFetch(domain:*.example.com)", "https://docs.example.com/", "allow"),
        ("WebFetch(domain:*.example.com)", "https://example.com/", "ask"),
        ("WebFetch(domain:*.example.com)", "https://notexample.com/", "ask"),
        ("WebFetch(domain:127.0.0.1)", "http://127.0.0.1:8123/x", "allow"),
        ("WebFetch", "https://anything.org/", "allow"),
        ("WebFetch(https://example.com)", "https://example.com/", "ask"),  # not a domain rule
    ],
)
def test_an_allow_rule_speaks_for_its_domain_only(tmp_path, rule, url, expected):
    assert decide(tmp_path, url, allow=[rule]) == expected


def test_deny_beats_allow_and_bypass(tmp_path):
    url = "https://example.com/"
    deny = ["WebFetch(domain:example.com)"]

    assert decide(tmp_path, url, allow=["WebFetch"], deny=deny) == "deny"
    assert decide(tmp_path, url, "bypassPermissions", deny=deny) == "deny"
    assert decide(tmp_path, "https://other.org/", allow=["WebFetch"], deny=deny) == "allow"


def test_a_deny_rule_that_cannot_be_checked_asks_and_an_ask_rule_asks(tmp_path):
    url = "https://example.com/"

    assert decide(tmp_path, url, allow=["WebFetch"], deny=["WebFetch(example.com)"]) == "ask"
    assert decide(tmp_path, url, allow=["WebFetch"], ask=["WebFetch(domain:example.com)"]) == "ask"


def test_a_bare_deny_rule_hides_the_tool(tmp_path):
    assert policy(tmp_path, deny=["WebFetch"]).hides("WebFetch")


async def test_dont_ask_again_offers_the_domain(tmp_path):
    tool = WebFetchTool()
    inp = tool.input_model.model_validate({"url": "https://Docs.Python.org/3/x", "prompt": "?"})
    gate = PermissionGate(policy(tmp_path), remember=lambda rules: None)

    question = gate.question(tool, inp, "toolu_1", "asks", None)

    assert question.request.rules == ("WebFetch(domain:docs.python.org)",)
    assert question.request.subject == "https://Docs.Python.org/3/x"
    assert [o.scope for o in question.request.options] == ["once", "session", "always"]


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ({}, "allow"),
        ({"allow": ["WebSearch"]}, "allow"),
        ({"deny": ["WebSearch"]}, "deny"),
        ({"ask": ["WebSearch"]}, "deny"),  # nobody can be asked mid-answer: not offered
    ],
)
def test_web_search_is_offered_unless_a_rule_denies_or_asks(tmp_path, rules, expected):
    assert server_tool_decision(policy(tmp_path, **rules), "WebSearch").behavior == expected


def test_web_search_is_not_offered_while_protection_is_uncertain(tmp_path):
    locked = policy(tmp_path)
    locked.locked_reason = "protection uncertain: a settings file could not be read"

    assert server_tool_decision(locked, "WebSearch").behavior == "deny"
