"""The gate: the question it builds, "session" and "always" answers, ExitPlanMode approval."""

from __future__ import annotations

import json

from agentcli.permissions.gate import GateResult, PermissionGate, headless_answer
from agentcli.permissions.persist import remember_allow_rules
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import FileSnapshot, Tool, Workspace
from agentcli.tools.bash import BashInput, BashTool
from agentcli.tools.display import load_display
from agentcli.tools.edit import EditTool
from agentcli.tools.exit_plan_mode import ExitPlanModeInput, ExitPlanModeTool
from agentcli.tools.inputs import ToolInput
from agentcli.tools.write import WriteTool


def _gate(root, mode=PermissionMode.DEFAULT):
    policy = PermissionPolicy(Workspace(root=root), mode)
    return PermissionGate(policy, remember=lambda rules: remember_allow_rules(root, rules))


async def _ask(
    gate: PermissionGate, tool: Tool, inp: ToolInput, answer: PermissionAnswer
) -> tuple[PermissionRequest, GateResult]:
    """What the tool runner does with a call the gate says to ask about."""
    decision = gate.settle(tool, gate.decide(tool, inp))
    assert decision.behavior == "ask", decision
    question = gate.question(tool, inp, "t1", decision.reason, None)
    return question.request, gate.apply(question, answer)


def _yes(scope: str = "once") -> PermissionAnswer:
    return PermissionAnswer(allow=True, scope=scope)


async def test_session_answer_adds_a_prefix_rule_per_command(tmp_path):
    gate = _gate(tmp_path)
    tool = BashTool()
    _request, result = await _ask(
        gate, tool, BashInput(command="npm test && make lint"), _yes("session")
    )
    assert result.allowed
    assert [str(r) for r in gate.policy.allow] == ["Bash(npm test:*)", "Bash(make lint:*)"]
    assert gate.decide(tool, BashInput(command="npm test -- x")).behavior == "allow"
    assert gate.decide(tool, BashInput(command="npm test; rm -rf ~")).behavior == "ask"
    assert not (tmp_path / ".agentcli").exists()  # "session" writes nothing


async def test_always_answer_writes_the_local_settings_and_keeps_the_rest(tmp_path):
    local = tmp_path / ".agentcli" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"theme": "dark", "permissions": {"allow": ["Read"]}}))
    gate = _gate(tmp_path)
    inp = BashInput(command="git push origin main")
    request, result = await _ask(gate, BashTool(), inp, _yes("always"))
    assert request.rules == ("Bash(git push:*)",)  # the question names what will be saved
    assert result.notice == f"Saved Bash(git push:*) to {local}"
    saved = json.loads(local.read_text())
    assert saved == {"theme": "dark", "permissions": {"allow": ["Read", "Bash(git push:*)"]}}
    assert gate.decide(BashTool(), BashInput(command="git push")).behavior == "allow"


async def test_always_answer_with_a_broken_local_file_still_allows_and_reports(tmp_path):
    local = tmp_path / ".agentcli" / "settings.local.json"
    local.parent.mkdir()
    local.write_text("{broken")
    gate = _gate(tmp_path)
    _request, result = await _ask(gate, BashTool(), BashInput(command="make"), _yes("always"))
    assert result.allowed
    assert local.read_text() == "{broken"
    assert result.notice_level == "warning" and "for this session only" in (result.notice or "")
    assert str(local) in (result.notice or "")


async def test_session_answer_for_an_edit_allows_edits_inside_only(tmp_path):
    gate = _gate(tmp_path)
    edit = EditTool()
    inp = edit.input_model(file_path="a.py", old_string="a", new_string="b")
    await _ask(gate, edit, inp, _yes("session"))
    assert (
        gate.decide(
            edit, edit.input_model(file_path="b.py", old_string="a", new_string="b")
        ).behavior
        == "allow"
    )
    outside = edit.input_model(file_path="/elsewhere/x.py", old_string="a", new_string="b")
    assert gate.decide(edit, outside).behavior == "ask"


async def test_refusal_tells_the_model_and_headless_explains(tmp_path):
    gate = _gate(tmp_path)
    tool, inp = BashTool(), BashInput(command="rm x")
    question = gate.question(tool, inp, "t", gate.decide(tool, inp).reason, None)
    result = gate.apply(question, headless_answer(question.request))
    assert not result.allowed and "non-interactive" in result.message


async def test_the_question_offers_only_answers_that_mean_something(tmp_path):
    gate = _gate(tmp_path)
    request, _result = await _ask(gate, BashTool(), BashInput(command="npm test"), _yes())
    assert request.title == "Bash command" and request.subject == "npm test"
    assert [(o.scope, o.label) for o in request.options] == [
        ("once", "Yes"),
        ("session", "Yes, and don't ask again for `Bash(npm test:*)` this session"),
        ("always", "Yes, and don't ask again for `Bash(npm test:*)` in this project"),
    ]
    # A line the analyser cannot take apart gets no rule, so only "once" is offered.
    request, _result = await _ask(gate, BashTool(), BashInput(command="echo 'open"), _yes())
    assert request.rules == () and [o.scope for o in request.options] == ["once"]


async def test_the_question_is_plain_data_an_sdk_or_acp_client_can_be_sent(tmp_path):
    """The request dumps to JSON with the tool's preview whole (a diff's hunks)."""
    target = tmp_path / "a.py"
    target.write_text("one\n")
    gate = _gate(tmp_path)
    tool = WriteTool()
    inp = tool.input_model(file_path=str(target), content="two\n")
    gate.policy.workspace.read_files[str(target)] = FileSnapshot(
        target.stat().st_mtime_ns, target.stat().st_size
    )
    preview = await tool.permission_preview(inp, gate.policy.workspace)
    question = gate.question(tool, inp, "toolu_1", "edits ask", preview)
    sent = json.loads(json.dumps(question.request.model_dump(mode="json")))
    assert sent["title"] == "Write file" and sent["path"] == str(target)
    assert sent["preview"]["type"] == "diff"
    assert sent["preview"]["hunks"][0]["lines"] == ["-one", "+two"]
    assert load_display(sent["preview"]) == preview


async def test_exit_plan_mode_approval_switches_modes(tmp_path):
    tool, inp = ExitPlanModeTool(), ExitPlanModeInput(plan="1. edit a.py")
    for scope, mode in (("once", PermissionMode.DEFAULT), ("session", PermissionMode.ACCEPT_EDITS)):
        gate = _gate(tmp_path, PermissionMode.PLAN)
        request, result = await _ask(gate, tool, inp, _yes(scope))
        assert result.allowed and [o.scope for o in request.options] == ["once", "session"]
        assert gate.policy.mode is mode and gate.policy.allow == []


async def test_exit_plan_mode_refusal_keeps_planning(tmp_path):
    gate = _gate(tmp_path, PermissionMode.PLAN)
    refusal = PermissionAnswer(allow=False)
    _request, result = await _ask(gate, ExitPlanModeTool(), ExitPlanModeInput(plan="p"), refusal)
    assert not result.allowed and "plan mode" in result.message
    assert gate.policy.mode is PermissionMode.PLAN


async def test_a_refusal_for_the_session_refuses_the_same_calls_without_asking_again(tmp_path):
    """ACP's `reject_always`: "no, and don't ask again" this session. The question's rules
    become deny rules for the session; other calls still ask, nothing is written."""
    gate = _gate(tmp_path)
    tool = BashTool()
    no_more = PermissionAnswer(allow=False, scope="session")
    _request, result = await _ask(gate, tool, BashInput(command="npm publish"), no_more)

    assert not result.allowed
    assert [str(r) for r in gate.policy.deny] == ["Bash(npm publish:*)"]
    assert gate.decide(tool, BashInput(command="npm publish --tag next")).behavior == "deny"
    assert gate.decide(tool, BashInput(command="npm test")).behavior == "ask"
    assert not (tmp_path / ".agentcli").exists()
