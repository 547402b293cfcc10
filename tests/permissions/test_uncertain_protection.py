"""Fail closed: while deny or ask rules could not be read, nothing runs without asking.

The policy's `locked_reason` is set by bootstrap from the settings; every
front end gets it, since the policy and the gate are shared.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.config.rules import parse_tool_list
from agentcli.permissions.gate import PermissionGate, headless_answer
from agentcli.permissions.persist import remember_allow_rules
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import Decision, PermissionMode
from agentcli.tools.base import Workspace
from agentcli.tools.bash import BashInput, BashTool
from agentcli.tools.edit import EditTool
from agentcli.tools.exit_plan_mode import ExitPlanModeInput, ExitPlanModeTool
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteTool

REASON = "protection uncertain: the deny and ask rules in /p/settings.json could not be read"


def _policy(root: Path, mode=PermissionMode.DEFAULT, allow=(), ask=(), deny=(), locked=REASON):
    return PermissionPolicy(
        Workspace(root=root),
        mode,
        allow=parse_tool_list(list(allow), "test", root),
        ask=parse_tool_list(list(ask), "test", root),
        deny=parse_tool_list(list(deny), "test", root),
        locked_reason=locked,
    )


def _calls(root: Path) -> dict:
    file = str(root / "a.py")
    return {
        "read": (ReadTool(), ReadTool.input_model(file_path=file)),
        "edit": (EditTool(), EditTool.input_model(file_path=file, old_string="a", new_string="b")),
        "write": (WriteTool(), WriteTool.input_model(file_path=file, content="x")),
        "ls": (BashTool(), BashInput(command="ls")),
        "rm": (BashTool(), BashInput(command="rm a.py")),
    }


@pytest.mark.parametrize(
    ("mode", "allow", "call"),
    [
        (PermissionMode.DEFAULT, (), "read"),  # read-only inside the project
        (PermissionMode.DEFAULT, (), "ls"),  # a read-only command
        (PermissionMode.ACCEPT_EDITS, (), "edit"),
        (PermissionMode.DEFAULT, ("Edit",), "write"),
        (PermissionMode.DEFAULT, ("Bash",), "rm"),  # the issue's --allowedTools Bash
        (PermissionMode.BYPASS, (), "rm"),
        (PermissionMode.PLAN, (), "read"),
    ],
)
def test_what_would_be_allowed_asks_with_the_reason(tmp_path, mode, allow, call):
    tool, inp = _calls(tmp_path)[call]
    assert _policy(tmp_path, mode, allow=allow, locked=None).decide(tool, inp).behavior == "allow"
    decision = _policy(tmp_path, mode, allow=allow).decide(tool, inp)
    assert decision == Decision("ask", REASON)


@pytest.mark.parametrize("mode", list(PermissionMode))
def test_deny_rules_still_deny(tmp_path, mode):
    policy = _policy(tmp_path, mode, allow=("Bash",), deny=("Bash(rm:*)", "Read(./a.py)"))
    for call in ("rm", "read"):
        tool, inp = _calls(tmp_path)[call]
        assert policy.decide(tool, inp).behavior == "deny"


def test_plan_mode_still_refuses_edits_and_ask_rules_still_ask(tmp_path):
    calls = _calls(tmp_path)
    assert _policy(tmp_path, PermissionMode.PLAN).decide(*calls["edit"]).behavior == "deny"
    asked = _policy(tmp_path, ask=("Bash(rm:*)",)).decide(*calls["rm"])
    assert asked == Decision("ask", "the rule Bash(rm:*) asks", "Bash(rm:*)")


def test_exit_plan_mode_outside_plan_mode_is_not_held(tmp_path):
    decision = _policy(tmp_path).decide(ExitPlanModeTool(), ExitPlanModeInput(plan="p"))
    assert decision.behavior == "allow"


def test_a_hooks_allow_is_held_too(tmp_path):
    gate = PermissionGate(_policy(tmp_path))
    tool, _inp = _calls(tmp_path)["rm"]
    forced = Decision("allow", "allowed by a PreToolUse hook")
    assert gate.settle(tool, forced) == Decision("ask", REASON)


async def test_headless_refusal_says_the_settings_must_be_fixed(tmp_path):
    gate = PermissionGate(_policy(tmp_path, allow=("Bash",)))
    tool, inp = _calls(tmp_path)["rm"]
    decision = gate.decide(tool, inp)
    assert decision.behavior == "ask"
    question = gate.question(tool, inp, "t1", decision.reason, None)
    result = gate.apply(question, headless_answer(question.request))
    assert not result.allowed
    assert "/p/settings.json" in result.message and "--allowedTools" not in result.message


def test_bootstrap_puts_the_state_on_the_policy(tmp_path):
    from agentcli.wiring.bootstrap import Options, build_engine

    settings = tmp_path / ".agentcli" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"deny": ["Bash(rm:*)"}}')
    engine = build_engine(Options(tmp_path, allowed_tools=["Bash"]), None)
    reason = engine.gate.policy.locked_reason
    assert reason.startswith("protection uncertain") and str(settings) in reason
    assert engine.gate.decide(*_calls(tmp_path)["ls"]).behavior == "ask"


def test_an_always_answer_keeps_an_allow_rule_written_as_a_string(tmp_path):
    local = tmp_path / ".agentcli" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"permissions": {"allow": "Read"}}))
    remember_allow_rules(tmp_path, parse_tool_list(["Bash(make:*)"], "session"))
    assert json.loads(local.read_text()) == {"permissions": {"allow": ["Read", "Bash(make:*)"]}}


def test_startup_notices_name_the_file_and_the_state(tmp_path):
    from agentcli.config.notices import startup_notices
    from agentcli.config.settings import load_settings

    settings_file = tmp_path / ".agentcli" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text("{")
    notices = startup_notices(load_settings(tmp_path), PermissionMode.BYPASS)
    skipped, locked, bypass = notices
    assert str(settings_file) in skipped.text and "line 1, column 2" in skipped.text
    assert locked.level == "error" and locked.text.startswith("Protection uncertain")
    assert "bypassPermissions" in bypass.text
