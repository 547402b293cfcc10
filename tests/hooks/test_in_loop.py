"""Hooks inside the loop: PreToolUse/PostToolUse around tools, Stop, UserPromptSubmit."""

from __future__ import annotations

import json

from agentcli.engine.events import (
    EndReason,
    Notice,
    ToolCallFinished,
    ToolPermissionRequested,
    TurnEnded,
)
from agentcli.hooks.stop import MAX_CONTINUATIONS
from agentcli.hooks.tool_hooks import combine_decision
from agentcli.permissions.question_models import PermissionAnswer
from agentcli.permissions.types import Decision, PermissionMode
from tests.engine.harness import make_engine, of_type, run_turn
from tests.engine.scripted import Probe, Response, ScriptedProvider, make_tool, text, tool_use
from tests.hooks.helpers import hook_script, one, payloads


def _engine(tmp_path, provider, config, probe=None, **kw):
    probe = probe or Probe()
    engine = make_engine(
        provider, [make_tool("Act", probe, safe=False)], tmp_path, hooks=config, **kw
    )
    return engine, probe


def _result(events):
    (finished,) = of_type(events, ToolCallFinished)
    return finished


async def test_pre_tool_use_exit_2_refuses_the_call_with_stderr(tmp_path):
    cmd = hook_script(tmp_path, "pre", "sys.stderr.write('not today'); sys.exit(2)")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("ok")]))
    engine, probe = _engine(tmp_path, provider, one("PreToolUse", cmd, "Act"))
    events = await run_turn(engine, "go")
    assert probe.order == []  # the tool never ran
    finished = _result(events)
    assert finished.is_error and "not today" in finished.result["content"]
    assert events[-1].reason is EndReason.COMPLETED


async def test_pre_tool_use_allow_skips_the_question(tmp_path):
    out = {"hookSpecificOutput": {"permissionDecision": "allow"}}
    cmd = hook_script(tmp_path, "pre", f"print(json.dumps({out!r}))")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    # default mode + headless approver would refuse this call without the hook
    engine, probe = _engine(tmp_path, provider, one("PreToolUse", cmd), mode=PermissionMode.DEFAULT)
    events = await run_turn(engine, "go")
    assert probe.order == ["start:Act:x", "end:Act:x"]
    assert not _result(events).is_error


def test_pre_tool_use_allow_does_not_beat_a_deny_rule():
    denied = Decision("deny", "denied by the rule Bash(rm:*)")
    assert combine_decision(denied, "allow") is denied
    assert combine_decision(Decision("ask", "edit"), "allow").behavior == "allow"
    assert combine_decision(Decision("allow", "read-only"), "ask").behavior == "ask"


async def test_pre_tool_use_ask_reaches_the_person_even_in_bypass(tmp_path):
    out = {"hookSpecificOutput": {"permissionDecision": "ask"}}
    cmd = hook_script(tmp_path, "pre", f"print(json.dumps({out!r}))")
    asked = []

    async def approver(request):
        asked.append(request.tool_name)
        return PermissionAnswer(allow=True)

    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(tmp_path, provider, one("PreToolUse", cmd))
    await run_turn(engine, "go", approver)
    assert asked == ["Act"] and probe.order


async def test_a_hooks_allow_held_by_uncertain_protection_is_asked_on_the_event_stream(tmp_path):
    """Protection uncertain holds a PreToolUse "allow" too: the call is put to the
    person the one way every question travels, with the waiting state on its pane."""
    out = {"hookSpecificOutput": {"permissionDecision": "allow"}}
    cmd = hook_script(tmp_path, "pre", f"print(json.dumps({out!r}))")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(tmp_path, provider, one("PreToolUse", cmd))
    engine.gate.policy.locked_reason = "protection uncertain: a settings file could not be read"
    events = await run_turn(engine, "go")
    (asked,) = of_type(events, ToolPermissionRequested)
    assert asked.question.request.reason.startswith("protection uncertain")
    assert probe.order == [] and _result(events).status == "denied"


async def test_the_notification_hook_hears_of_each_question_only(tmp_path):
    cmd = hook_script(tmp_path, "note")
    provider = ScriptedProvider(
        Response([tool_use("Act", {"value": "x"})]),
        Response([tool_use("Act", {"value": "y"})]),
        Response([text("k")]),
    )
    engine, _probe = _engine(
        tmp_path, provider, one("Notification", cmd), mode=PermissionMode.DEFAULT
    )

    async def allow_for_the_session(request):
        return PermissionAnswer(allow=True, scope="session")

    await run_turn(engine, "go", allow_for_the_session)  # the second call is allowed by then
    await engine.hooks.drain()
    notes = payloads(tmp_path, "note")
    assert [n["message"] for n in notes] == ["agentcli needs your permission to use Act"]


async def test_pre_tool_use_updated_input_replaces_the_input(tmp_path):
    out = {"hookSpecificOutput": {"updatedInput": {"value": "safer"}}}
    cmd = hook_script(tmp_path, "pre", f"print(json.dumps({out!r}))")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(tmp_path, provider, one("PreToolUse", cmd))
    await run_turn(engine, "go")
    assert probe.order == ["start:Act:safer", "end:Act:safer"]


async def test_post_tool_use_sees_the_response_and_exit_2_feeds_the_model(tmp_path):
    cmd = hook_script(tmp_path, "post", "sys.stderr.write('lint failed'); sys.exit(2)")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, _ = _engine(tmp_path, provider, one("PostToolUse", cmd))
    events = await run_turn(engine, "go")
    content = _result(events).result["content"]
    assert content.startswith("Act did x") and "lint failed" in content
    (payload,) = payloads(tmp_path, "post")
    assert payload["tool_response"] == "Act did x" and payload["tool_name"] == "Act"
    # the model's next request carries the feedback
    last = provider.requests[-1].messages[-1]
    assert "lint failed" in json.dumps(last)


async def test_tool_hook_continue_false_ends_with_hook_stopped(tmp_path):
    cmd = hook_script(tmp_path, "post", "print(json.dumps({'continue': False, 'stopReason': 'x'}))")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]))
    engine, _ = _engine(tmp_path, provider, one("PostToolUse", cmd))
    events = await run_turn(engine, "go")
    assert events[-1].reason is EndReason.HOOK_STOPPED and events[-1].error == "x"
    assert len(provider.requests) == 1
    assert engine.messages[-1]["content"][0]["type"] == "tool_result"


async def test_non_blocking_hook_error_is_a_notice(tmp_path):
    cmd = hook_script(tmp_path, "pre", "sys.exit(3)")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(tmp_path, provider, one("PreToolUse", cmd))
    events = await run_turn(engine, "go")
    assert probe.order  # still ran
    assert any("exit 3" in n.text for n in of_type(events, Notice))


async def test_stop_exit_2_makes_the_model_continue(tmp_path):
    body = (
        "if not payload['stop_hook_active']:\n"
        "    sys.stderr.write('run the tests first'); sys.exit(2)"
    )
    cmd = hook_script(tmp_path, "stop", body)
    provider = ScriptedProvider(Response([text("done")]), Response([text("tests pass")]))
    engine, _ = _engine(tmp_path, provider, one("Stop", cmd))
    events = await run_turn(engine, "go")
    assert events[-1].reason is EndReason.COMPLETED and events[-1].turns == 2
    assert [p["stop_hook_active"] for p in payloads(tmp_path, "stop")] == [False, True]
    second = provider.requests[1].messages
    assert second[-1]["role"] == "user" and "run the tests first" in json.dumps(second[-1])


async def test_a_stop_hook_that_always_blocks_is_cut_off(tmp_path):
    cmd = hook_script(tmp_path, "stop", "sys.stderr.write('again'); sys.exit(2)")
    responses = [Response([text(f"try {i}")]) for i in range(MAX_CONTINUATIONS + 1)]
    engine, _ = _engine(tmp_path, ScriptedProvider(*responses), one("Stop", cmd))
    events = await run_turn(engine, "go")
    assert events[-1].reason is EndReason.STOP_HOOK_PREVENTED
    assert len(payloads(tmp_path, "stop")) == MAX_CONTINUATIONS + 1


async def test_stop_continue_false_ends_with_hook_stopped(tmp_path):
    cmd = hook_script(
        tmp_path, "stop", "print(json.dumps({'continue': False, 'stopReason': 'bye'}))"
    )
    engine, _ = _engine(tmp_path, ScriptedProvider(Response([text("hi")])), one("Stop", cmd))
    events = await run_turn(engine, "go")
    assert events[-1] == TurnEnded(EndReason.HOOK_STOPPED, 1, events[-1].usage, "bye")


async def test_user_prompt_submit_block_never_calls_the_model(tmp_path):
    cmd = hook_script(tmp_path, "ups", "sys.stderr.write('no secrets in prompts'); sys.exit(2)")
    provider = ScriptedProvider()
    engine, _ = _engine(tmp_path, provider, one("UserPromptSubmit", cmd))
    events = await run_turn(engine, "my password is hunter2")
    assert provider.requests == [] and engine.messages == []
    assert events[-1].reason is EndReason.HOOK_STOPPED
    assert any("no secrets" in n.text for n in of_type(events, Notice))
    assert payloads(tmp_path, "ups")[0]["prompt"] == "my password is hunter2"


async def test_user_prompt_submit_context_goes_with_the_prompt(tmp_path):
    cmd = hook_script(tmp_path, "ups", "print('branch: main')")
    provider = ScriptedProvider(Response([text("ok")]))
    engine, _ = _engine(tmp_path, provider, one("UserPromptSubmit", cmd))
    await run_turn(engine, "hi")
    sent = json.dumps(provider.requests[0].messages[0])
    assert "hi" in sent and "branch: main" in sent


async def test_session_start_context_goes_with_the_first_prompt(tmp_path):
    out = {"hookSpecificOutput": {"additionalContext": "open issues: 3"}}
    cmd = hook_script(tmp_path, "ss", f"print(json.dumps({out!r}))")
    provider = ScriptedProvider(Response([text("ok")]), Response([text("ok")]))
    engine, _ = _engine(tmp_path, provider, one("SessionStart", cmd))
    assert await engine.start_session() == []
    await run_turn(engine, "hi")
    await run_turn(engine, "again")
    assert "open issues: 3" in json.dumps(provider.requests[0].messages)
    assert "open issues: 3" not in json.dumps(provider.requests[1].messages[-1])
