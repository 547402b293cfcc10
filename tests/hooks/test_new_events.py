"""The hook events beyond the first seven, inside the engine, with real hook commands:
PostToolUseFailure, PermissionRequest, PreCompact/PostCompact, and the full field
sets of PostToolUse, Stop and Notification (Claude Code's names and shapes)."""

from __future__ import annotations

import json

from agentcli.config.hook_events import HookEvent
from agentcli.config.hooks import HooksConfig
from agentcli.core.usage import Usage
from agentcli.engine.compaction import Compactor
from agentcli.engine.events import (
    EndReason,
    Notice,
    ToolCallFinished,
    ToolCallRunning,
    ToolPermissionRequested,
)
from agentcli.permissions.types import PermissionMode
from tests.engine.harness import make_engine, of_type, run_turn
from tests.engine.scripted import Probe, Response, ScriptedProvider, make_tool, text, tool_use
from tests.hooks.helpers import hook_script, one, payloads

COMMON = {"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name"}


def _engine(tmp_path, provider, config, behaviour="ok", **kw):
    probe = Probe()
    tool = make_tool("Act", probe, safe=False, behaviour=behaviour)
    return make_engine(provider, [tool], tmp_path, hooks=config, **kw), probe


def _printing(data: dict) -> str:
    return f"print(json.dumps({data!r}))"


def _sent(provider, index: int) -> str:
    return json.dumps(provider.requests[index].messages)


def test_every_event_of_claude_codes_loads_from_settings():
    events = [
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "UserPromptSubmit",
        "Stop",
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
        "Notification",
        "SessionStart",
        "SessionEnd",
    ]
    config = HooksConfig.model_validate(
        {
            e: [{"matcher": "", "hooks": [{"type": "command", "command": f"echo {e}"}]}]
            for e in events
        }
    )
    for event in events:
        assert [c.command for c in config.commands(HookEvent(event))] == [f"echo {event}"]


# -- PostToolUseFailure ------------------------------------------------------------


async def test_a_failed_call_fires_post_tool_use_failure_with_its_fields_not_post_tool_use(
    tmp_path,
):
    out = {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUseFailure",
            "additionalContext": "the Act service is down on Tuesdays",
        }
    }
    failure = hook_script(tmp_path, "failure", _printing(out))
    post = hook_script(tmp_path, "post")
    config = {**one("PostToolUseFailure", failure, "Act"), **one("PostToolUse", post)}
    provider = ScriptedProvider(
        Response([tool_use("Act", {"value": "x"}, id="toolu_f")]), Response([text("ok")])
    )
    engine, _probe = _engine(tmp_path, provider, config, behaviour="tool_error")
    await run_turn(engine, "go")

    (payload,) = payloads(tmp_path, "failure")
    assert payload.keys() >= COMMON and payload["hook_event_name"] == "PostToolUseFailure"
    assert payload["tool_name"] == "Act" and payload["tool_input"] == {"value": "x"}
    assert payload["tool_use_id"] == "toolu_f"
    assert payload["error"] == "Act cannot do x"
    assert payload["is_interrupt"] is False
    assert isinstance(payload["duration_ms"], int) and payload["duration_ms"] >= 0
    assert payloads(tmp_path, "post") == []  # PostToolUse is for calls that succeeded
    # Its additionalContext reaches the model with the failed result.
    assert "the Act service is down on Tuesdays" in _sent(provider, 1)


async def test_a_tool_that_raises_is_a_failure_too_and_exit_2_feedback_reaches_the_model(
    tmp_path,
):
    failure = hook_script(tmp_path, "failure", "sys.stderr.write('try --force'); sys.exit(2)")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, _probe = _engine(
        tmp_path, provider, one("PostToolUseFailure", failure), behaviour="raise"
    )
    events = await run_turn(engine, "go")
    (payload,) = payloads(tmp_path, "failure")
    assert "RuntimeError: boom" in payload["error"]
    (finished,) = of_type(events, ToolCallFinished)
    assert finished.is_error and "try --force" in finished.result["content"]
    assert "try --force" in _sent(provider, 1)


async def test_post_tool_use_gets_the_response_and_duration_and_its_context_reaches_the_model(
    tmp_path,
):
    out = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "lint ok"}}
    post = hook_script(tmp_path, "post", _printing(out))
    failure = hook_script(tmp_path, "failure")
    config = {**one("PostToolUse", post), **one("PostToolUseFailure", failure)}
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, _probe = _engine(tmp_path, provider, config)
    await run_turn(engine, "go")
    (payload,) = payloads(tmp_path, "post")
    assert payload["tool_response"] == "Act did x"
    assert isinstance(payload["duration_ms"], int) and payload["duration_ms"] >= 0
    assert payloads(tmp_path, "failure") == []
    assert "lint ok" in _sent(provider, 1)


# -- PermissionRequest -------------------------------------------------------------


def _decision(**decision) -> str:
    return _printing(
        {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
    )


async def test_permission_request_allow_answers_the_question_before_anyone_sees_it(tmp_path):
    request = hook_script(tmp_path, "request", _decision(behavior="allow"))
    note = hook_script(tmp_path, "note")
    config = {**one("PermissionRequest", request, "Act"), **one("Notification", note)}
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(tmp_path, provider, config, mode=PermissionMode.DEFAULT)
    events = await run_turn(engine, "go")  # the harness's answer would refuse

    assert of_type(events, ToolPermissionRequested) == []  # no front end was asked
    assert probe.order == ["start:Act:x", "end:Act:x"]
    (payload,) = payloads(tmp_path, "request")
    assert payload.keys() >= COMMON and payload["hook_event_name"] == "PermissionRequest"
    assert payload["tool_name"] == "Act" and payload["tool_input"] == {"value": "x"}
    assert payload["permission_mode"] == "default"
    assert isinstance(payload["permission_suggestions"], list)
    await engine.hooks.drain()
    assert payloads(tmp_path, "note") == []  # nobody waits for the person


async def test_permission_request_allow_with_updated_input_runs_the_new_input(tmp_path):
    request = hook_script(
        tmp_path, "request", _decision(behavior="allow", updatedInput={"value": "safe"})
    )
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(
        tmp_path, provider, one("PermissionRequest", request), mode=PermissionMode.DEFAULT
    )
    await run_turn(engine, "go")
    assert probe.order == ["start:Act:safe", "end:Act:safe"]


async def test_permission_request_deny_refuses_with_its_message_and_asks_nobody(tmp_path):
    request = hook_script(tmp_path, "request", _decision(behavior="deny", message="not on prod"))
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(
        tmp_path, provider, one("PermissionRequest", request), mode=PermissionMode.DEFAULT
    )
    events = await run_turn(engine, "go", _must_not_be_asked)
    assert probe.order == [] and of_type(events, ToolPermissionRequested) == []
    (finished,) = of_type(events, ToolCallFinished)
    assert finished.status == "denied" and "not on prod" in finished.result["content"]
    assert "not on prod" in _sent(provider, 1)
    assert events[-1].reason is EndReason.COMPLETED


async def test_permission_request_deny_with_interrupt_stops_the_turn(tmp_path):
    request = hook_script(
        tmp_path, "request", _decision(behavior="deny", message="stop", interrupt=True)
    )
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(
        tmp_path, provider, one("PermissionRequest", request), mode=PermissionMode.DEFAULT
    )
    events = await run_turn(engine, "go")
    assert probe.order == [] and len(provider.requests) == 1  # the model is not asked again
    assert events[-1].reason is EndReason.ABORTED_TOOLS


async def test_permission_request_exit_2_denies_with_stderr(tmp_path):
    request = hook_script(tmp_path, "request", "sys.stderr.write('ask ops first'); sys.exit(2)")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(
        tmp_path, provider, one("PermissionRequest", request), mode=PermissionMode.DEFAULT
    )
    events = await run_turn(engine, "go", _must_not_be_asked)
    (finished,) = of_type(events, ToolCallFinished)
    assert probe.order == [] and "ask ops first" in finished.result["content"]


async def test_deny_beats_allow_between_permission_request_hooks(tmp_path):
    allow = hook_script(tmp_path, "allow", _decision(behavior="allow"))
    deny = hook_script(tmp_path, "deny", _decision(behavior="deny", message="no"))
    config = {
        "PermissionRequest": [
            {"matcher": "", "hooks": [{"type": "command", "command": c}]} for c in (allow, deny)
        ]
    }
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(tmp_path, provider, config, mode=PermissionMode.DEFAULT)
    await run_turn(engine, "go", _must_not_be_asked)
    assert probe.order == []


async def test_permission_request_without_a_decision_asks_the_person(tmp_path):
    request = hook_script(tmp_path, "request")  # prints nothing
    note = hook_script(tmp_path, "note")
    config = {**one("PermissionRequest", request), **one("Notification", note)}
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(tmp_path, provider, config, mode=PermissionMode.DEFAULT)
    events = await run_turn(engine, "go")
    assert len(of_type(events, ToolPermissionRequested)) == 1 and probe.order == []
    assert len(payloads(tmp_path, "request")) == 1
    await engine.hooks.drain()
    (note_payload,) = payloads(tmp_path, "note")
    assert note_payload["notification_type"] == "permission_prompt"
    assert note_payload["message"] == "agentcli needs your permission to use Act"


async def test_a_permission_request_allow_never_passes_uncertain_protection(tmp_path):
    request = hook_script(tmp_path, "request", _decision(behavior="allow"))
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(tmp_path, provider, one("PermissionRequest", request))
    engine.gate.policy.locked_reason = "protection uncertain: a settings file could not be read"
    events = await run_turn(engine, "go")  # refused by the person (the harness)
    (asked,) = of_type(events, ToolPermissionRequested)
    assert asked.question.request.reason.startswith("protection uncertain")
    assert probe.order == []


async def test_permission_request_matcher_names_the_tool(tmp_path):
    request = hook_script(tmp_path, "request", _decision(behavior="allow"))
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(
        tmp_path, provider, one("PermissionRequest", request, "Other"), mode=PermissionMode.DEFAULT
    )
    await run_turn(engine, "go")
    assert payloads(tmp_path, "request") == [] and probe.order == []


async def _must_not_be_asked(request):
    raise AssertionError(f"the person was asked about {request.tool_name}")


# -- Stop, Notification ------------------------------------------------------------


async def test_stop_is_told_the_last_assistant_message(tmp_path):
    stop = hook_script(tmp_path, "stop")
    provider = ScriptedProvider(Response([text("All done: 3 files changed.")]))
    engine, _probe = _engine(tmp_path, provider, one("Stop", stop))
    await run_turn(engine, "go")
    (payload,) = payloads(tmp_path, "stop")
    assert payload["last_assistant_message"] == "All done: 3 files changed."
    assert payload["stop_hook_active"] is False


async def test_notification_matchers_name_the_notification_type(tmp_path):
    idle = hook_script(tmp_path, "idle")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, _probe = _engine(
        tmp_path, provider, one("Notification", idle, "idle_prompt"), mode=PermissionMode.DEFAULT
    )
    await run_turn(engine, "go")
    await engine.hooks.drain()
    assert payloads(tmp_path, "idle") == []  # a permission prompt is not idle_prompt


# -- PreCompact / PostCompact ------------------------------------------------------

LONG = "details " * 150


def _compacting(tmp_path, config, *script):
    provider = ScriptedProvider(*script)
    compactor = Compactor(window=2000, threshold=0.5, keep_tokens=400)
    engine = make_engine(provider, [], tmp_path, session=True, compactor=compactor, hooks=config)
    return provider, engine, compactor


async def test_pre_and_post_compact_run_around_a_manual_compact(tmp_path):
    pre = hook_script(tmp_path, "pre")
    post = hook_script(tmp_path, "post")
    config = {**one("PreCompact", pre, "manual"), **one("PostCompact", post)}
    provider, engine, compactor = _compacting(
        tmp_path, config, Response([text("A1")]), Response([text("A2")]), Response([text("SUM")])
    )
    await run_turn(engine, "P1 " + LONG)
    await run_turn(engine, "P2 " + LONG)
    outcome = await engine.compact("keep the schema")
    assert outcome.ok, outcome.message
    assert compactor.compactions == 1 and len(provider.requests) == 3
    (before,) = payloads(tmp_path, "pre")
    assert before.keys() >= COMMON and before["hook_event_name"] == "PreCompact"
    assert before["trigger"] == "manual" and before["custom_instructions"] == "keep the schema"
    (after,) = payloads(tmp_path, "post")
    assert after["trigger"] == "manual" and after["compact_summary"] == "SUM"


async def test_a_pre_compact_block_leaves_the_conversation_and_asks_no_summary(tmp_path):
    pre = hook_script(tmp_path, "pre", "sys.stderr.write('save notes first'); sys.exit(2)")
    provider, engine, _compactor = _compacting(
        tmp_path, one("PreCompact", pre), Response([text("A1")]), Response([text("A2")])
    )
    await run_turn(engine, "P1 " + LONG)
    await run_turn(engine, "P2 " + LONG)
    before = json.dumps(engine.messages)
    outcome = await engine.compact()
    assert not outcome.ok and "save notes first" in outcome.message
    assert json.dumps(engine.messages) == before and len(provider.requests) == 2


async def test_a_blocked_auto_compaction_is_not_a_failure_and_is_tried_again(tmp_path):
    block = _printing({"decision": "block", "reason": "mid-migration"})
    pre = hook_script(tmp_path, "pre", block)
    _provider, engine, compactor = _compacting(
        tmp_path,
        one("PreCompact", pre, "auto"),
        *(Response([text(f"A{i}")], usage=Usage(400 * i, 20)) for i in range(1, 7)),
    )
    for i in range(1, 6):
        events = await run_turn(engine, f"P{i} " + LONG)
    assert compactor.compactions == 0 and compactor.failures == 0
    assert {p["trigger"] for p in payloads(tmp_path, "pre")} == {"auto"}
    assert len(payloads(tmp_path, "pre")) >= 3  # each request past the threshold asks again
    assert any("mid-migration" in n.text for n in of_type(events, Notice))


async def test_a_call_interrupted_while_it_runs_fires_post_tool_use_failure_with_is_interrupt(
    tmp_path,
):
    failure = hook_script(tmp_path, "failure")
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, probe = _engine(
        tmp_path, provider, one("PostToolUseFailure", failure), behaviour="wait"
    )
    events = []
    async for event in engine.submit_message("go"):
        events.append(event)
        if isinstance(event, ToolCallRunning):
            await probe.started.wait()
            engine.interrupt()
    assert events[-1].reason is EndReason.ABORTED_TOOLS
    await engine.hooks.drain()
    (payload,) = payloads(tmp_path, "failure")
    assert payload["is_interrupt"] is True and payload["tool_name"] == "Act"
    assert isinstance(payload["duration_ms"], int)


async def test_pre_tool_use_additional_context_reaches_the_model_with_the_result(tmp_path):
    out = {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "on branch x"}
    }
    pre = hook_script(tmp_path, "pre", _printing(out))
    provider = ScriptedProvider(Response([tool_use("Act", {"value": "x"})]), Response([text("k")]))
    engine, _probe = _engine(tmp_path, provider, one("PreToolUse", pre))
    await run_turn(engine, "go")
    assert "on branch x" in _sent(provider, 1)


async def test_a_hooks_changed_input_still_meets_the_deny_rules(tmp_path):
    """A PermissionRequest hook's allow with `updatedInput` answers the question about
    the input it was asked about; the input that runs is judged by the deny rules again
    (deny beats allow, whoever changed the input)."""
    from agentcli.tools.write import WriteTool

    (tmp_path / "private").mkdir()
    secret = tmp_path / "private" / "new.txt"
    changed = {"file_path": str(secret), "content": "written"}
    request = hook_script(tmp_path, "request", _decision(behavior="allow", updatedInput=changed))
    provider = ScriptedProvider(
        Response([tool_use("Write", {"file_path": str(tmp_path / "a.txt"), "content": "x"})]),
        Response([text("k")]),
    )
    engine = make_engine(
        provider,
        [WriteTool()],
        tmp_path,
        hooks=one("PermissionRequest", request),
        mode=PermissionMode.DEFAULT,
        deny=["Write(./private/**)"],
    )
    events = await run_turn(engine, "go")

    (finished,) = of_type(events, ToolCallFinished)
    assert finished.status == "denied" and "denied" in finished.result["content"]
    assert not secret.exists() and not (tmp_path / "a.txt").exists()
