"""The gate: "session" and "always" answers, ExitPlanMode approval, the wait notification."""

from __future__ import annotations

import json

from agentcli.permissions.gate import PermissionGate, headless_approver
from agentcli.permissions.persist import remember_allow_rules
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionAnswer, PermissionMode
from agentcli.tools.base import Workspace
from agentcli.tools.bash import BashInput, BashTool
from agentcli.tools.edit import EditTool
from agentcli.tools.exit_plan_mode import ExitPlanModeInput, ExitPlanModeTool


def _answering(scope: str, allow: bool = True, seen: list | None = None):
    async def approver(request):
        if seen is not None:
            seen.append(request)
        return PermissionAnswer(allow=allow, scope=scope)

    return approver


def _gate(root, approver, mode=PermissionMode.DEFAULT):
    policy = PermissionPolicy(Workspace(root=root), mode)
    return PermissionGate(
        policy, approver, remember=lambda rules: remember_allow_rules(root, rules)
    )


async def test_session_answer_adds_a_prefix_rule_per_command(tmp_path):
    gate = _gate(tmp_path, _answering("session"))
    tool = BashTool()
    result = await gate.check(tool, BashInput(command="npm test && make lint"), "t1")
    assert result.allowed
    assert [str(r) for r in gate.policy.allow] == ["Bash(npm test:*)", "Bash(make lint:*)"]
    assert gate.decide(tool, BashInput(command="npm test -- x")).behavior == "allow"
    assert gate.decide(tool, BashInput(command="npm test; rm -rf ~")).behavior == "ask"
    assert not (tmp_path / ".agentcli").exists()  # "session" writes nothing


async def test_always_answer_writes_the_local_settings_and_keeps_the_rest(tmp_path):
    local = tmp_path / ".agentcli" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"theme": "dark", "permissions": {"allow": ["Read"]}}))
    seen: list = []
    gate = _gate(tmp_path, _answering("always", seen=seen))
    result = await gate.check(BashTool(), BashInput(command="git push origin main"), "t1")
    assert seen[0].rules == ("Bash(git push:*)",)  # the question names what will be saved
    assert result.notice == f"Saved Bash(git push:*) to {local}"
    saved = json.loads(local.read_text())
    assert saved == {"theme": "dark", "permissions": {"allow": ["Read", "Bash(git push:*)"]}}
    assert gate.decide(BashTool(), BashInput(command="git push")).behavior == "allow"


async def test_always_answer_with_a_broken_local_file_still_allows_and_reports(tmp_path):
    local = tmp_path / ".agentcli" / "settings.local.json"
    local.parent.mkdir()
    local.write_text("{broken")
    gate = _gate(tmp_path, _answering("always"))
    result = await gate.check(BashTool(), BashInput(command="make"), "t")
    assert result.allowed
    assert local.read_text() == "{broken"
    assert result.notice_level == "warning" and "for this session only" in (result.notice or "")
    assert str(local) in (result.notice or "")


async def test_session_answer_for_an_edit_allows_edits_inside_only(tmp_path):
    gate = _gate(tmp_path, _answering("session"))
    edit = EditTool()
    inp = edit.input_model(file_path="a.py", old_string="a", new_string="b")
    await gate.check(edit, inp, "t")
    assert (
        gate.decide(
            edit, edit.input_model(file_path="b.py", old_string="a", new_string="b")
        ).behavior
        == "allow"
    )
    outside = edit.input_model(file_path="/elsewhere/x.py", old_string="a", new_string="b")
    assert gate.decide(edit, outside).behavior == "ask"


async def test_refusal_tells_the_model_and_headless_explains(tmp_path):
    gate = _gate(tmp_path, headless_approver)
    result = await gate.check(BashTool(), BashInput(command="rm x"), "t")
    assert not result.allowed and "non-interactive" in result.message


async def test_exit_plan_mode_approval_switches_modes(tmp_path):
    tool, inp = ExitPlanModeTool(), ExitPlanModeInput(plan="1. edit a.py")
    for scope, mode in (("once", PermissionMode.DEFAULT), ("session", PermissionMode.ACCEPT_EDITS)):
        gate = _gate(tmp_path, _answering(scope), PermissionMode.PLAN)
        assert gate.decide(tool, inp).behavior == "ask"
        assert (await gate.check(tool, inp, "t")).allowed
        assert gate.policy.mode is mode and gate.policy.allow == []


async def test_exit_plan_mode_refusal_keeps_planning(tmp_path):
    gate = _gate(tmp_path, _answering("once", allow=False), PermissionMode.PLAN)
    result = await gate.check(ExitPlanModeTool(), ExitPlanModeInput(plan="p"), "t")
    assert not result.allowed and "plan mode" in result.message
    assert gate.policy.mode is PermissionMode.PLAN


async def test_the_wait_callback_hears_of_each_question(tmp_path):
    heard = []
    gate = _gate(tmp_path, _answering("once"))
    gate.on_wait = heard.append
    await gate.check(BashTool(), BashInput(command="make"), "t")
    await gate.check(BashTool(), BashInput(command="ls"), "t")  # allowed: nobody is asked
    assert [r.subject for r in heard] == ["make"]
