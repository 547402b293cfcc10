"""autoAllowBashIfSandboxed: while the sandbox is on, a Bash call no rule decides runs without asking.

Deny rules, ask rules, plan mode and a fail-closed session still win: the
sandbox only replaces the question a person would otherwise be asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.config.rules import parse_tool_list
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.sandbox import Sandbox
from agentcli.tools.base import Workspace
from agentcli.tools.bash import BashInput, BashTool
from agentcli.tools.edit import EditTool


def _policy(
    tmp_path: Path,
    sandbox: Sandbox | None,
    *,
    mode: PermissionMode = PermissionMode.DEFAULT,
    allow: str = "",
    ask: str = "",
    deny: str = "",
    locked: str | None = None,
) -> PermissionPolicy:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    rules = {
        k: parse_tool_list([v], "user", root) if v else []
        for k, v in (("allow", allow), ("ask", ask), ("deny", deny))
    }
    return PermissionPolicy(Workspace(root, sandbox=sandbox), mode, locked_reason=locked, **rules)


def _bash(policy: PermissionPolicy, command: str):
    return policy.decide(BashTool(), BashInput(command=command))


@pytest.mark.parametrize("command", ["npm install", "make", "python build.py", "rm -rf build"])
def test_sandboxed_bash_calls_are_allowed_without_a_question(tmp_path, command):
    decision = _bash(_policy(tmp_path, Sandbox()), command)
    assert decision.behavior == "allow"
    assert "sandbox" in decision.reason and "autoAllowBashIfSandboxed" in decision.reason


def test_without_the_sandbox_the_same_calls_ask(tmp_path):
    assert _bash(_policy(tmp_path, None), "npm install").behavior == "ask"


def test_auto_allow_can_be_turned_off(tmp_path):
    policy = _policy(tmp_path, Sandbox(auto_allow_bash=False))
    assert _bash(policy, "npm install").behavior == "ask"


def test_a_deny_rule_still_denies(tmp_path):
    policy = _policy(tmp_path, Sandbox(), deny="Bash(rm:*)")
    assert _bash(policy, "ls && rm -rf build").behavior == "deny"


def test_an_ask_rule_still_asks(tmp_path):
    policy = _policy(tmp_path, Sandbox(), ask="Bash(git push:*)")
    assert _bash(policy, "git push origin main").behavior == "ask"


def test_plan_mode_still_refuses_what_is_not_read_only(tmp_path):
    policy = _policy(tmp_path, Sandbox(), mode=PermissionMode.PLAN)
    assert _bash(policy, "npm install").behavior == "deny"


def test_uncertain_protection_still_asks(tmp_path):
    policy = _policy(tmp_path, Sandbox(), locked="protection uncertain: a broken settings file")
    assert _bash(policy, "npm install").behavior == "ask"


def test_only_bash_is_auto_allowed(tmp_path):
    policy = _policy(tmp_path, Sandbox())
    edit = EditTool().input_model.model_validate(
        {"file_path": str(tmp_path / "project" / "a.py"), "old_string": "a", "new_string": "b"}
    )
    assert policy.decide(EditTool(), edit).behavior == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "cat .env",
        "python tool.py --config .env.local",
        "echo '[core] fsmonitor = x' >> .git/config",
        "cp evil.json .agentcli/settings.local.json",
        "cat private/key",
    ],
)
def test_a_sandboxed_line_that_names_a_protected_place_still_asks(tmp_path, command):
    """The sandbox hides nothing inside the project: `.env`, `.git/config`, agentcli's
    own settings and Read-denied files are asked about even when it would confine the rest."""
    policy = _policy(tmp_path, Sandbox(), deny="Read(./private/**)")
    decision = _bash(policy, command)
    assert decision.behavior in ("ask", "deny"), decision
    assert "autoAllowBashIfSandboxed" not in decision.reason
