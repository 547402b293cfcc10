"""The execution loop, event by event, with a scripted provider at the seam."""

from __future__ import annotations

import asyncio

from agentcli.engine.events import (
    ApiRetry,
    AssistantMessage,
    EndReason,
    RequestStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallRunning,
    ToolCallStarted,
    ToolPermissionRequested,
    TurnEnded,
    UserMessage,
)
from agentcli.engine.loop import INTERRUPT_MARKER
from agentcli.permissions.question_models import PermissionAnswer
from agentcli.permissions.types import PermissionMode
from agentcli.providers.base import ModelError
from agentcli.tools.display import LiveOutput
from tests.engine.harness import make_engine, of_type, run_turn
from tests.engine.scripted import Probe, Response, ScriptedProvider, make_tool, text, tool_use


def results_of(message: dict) -> list[dict]:
    return [b for b in message["content"] if b["type"] == "tool_result"]


async def test_text_answer_streams_then_completes(tmp_path):
    provider = ScriptedProvider(Response([text("Hello there, friend.")]))
    engine = make_engine(provider, [], tmp_path)

    events = await run_turn(engine, "hi")

    assert isinstance(events[0], RequestStarted)
    deltas = of_type(events, TextDelta)
    assert len(deltas) > 1 and "".join(d.text for d in deltas) == "Hello there, friend."
    (assistant,) = of_type(events, AssistantMessage)
    assert assistant.message == {"role": "assistant", "content": [text("Hello there, friend.")]}
    assert events[-1] == TurnEnded(EndReason.COMPLETED, 1, events[-1].usage)
    assert engine.messages[0] == {"role": "user", "content": [text("hi")]}
    assert engine.usage.output_tokens == 5


async def test_tool_round_trip_pairs_results_with_ids_in_order(tmp_path):
    probe = Probe()
    calls = [
        tool_use("Look", {"value": "a"}, "toolu_a"),
        tool_use("Look", {"value": "b"}, "toolu_b"),
    ]
    provider = ScriptedProvider(Response([text("Looking."), *calls]), Response([text("Done.")]))
    engine = make_engine(provider, [make_tool("Look", probe, safe=True)], tmp_path)

    events = await run_turn(engine, "look at a and b")

    assert events[-1].reason is EndReason.COMPLETED and events[-1].turns == 2
    assert [e.tool_use_id for e in of_type(events, ToolCallStarted)] == ["toolu_a", "toolu_b"]
    assert of_type(events, ToolCallStarted)[0].summary == "a"
    second = provider.requests[1].messages
    assert second[1]["content"][1:] == calls
    results = results_of(second[2])
    assert [r["tool_use_id"] for r in results] == ["toolu_a", "toolu_b"]
    assert [r["content"] for r in results] == ["Look did a", "Look did b"]
    assert not any(r.get("is_error") for r in results)
    assert of_type(events, ToolCallProgress)[0].data == LiveOutput(text="working on a")
    assert provider.invalid == []


async def test_unknown_tool_gets_an_error_result_naming_it(tmp_path):
    provider = ScriptedProvider(
        Response([tool_use("Teleport", {"to": "mars"}, "toolu_x")]), Response([text("Sorry.")])
    )
    engine = make_engine(provider, [make_tool("Look", Probe(), safe=True)], tmp_path)

    events = await run_turn(engine, "go")

    (finished,) = of_type(events, ToolCallFinished)
    assert finished.is_error and finished.status == "failed"
    assert "No such tool: Teleport" in finished.result["content"]
    assert "Look" in finished.result["content"]
    assert results_of(provider.requests[1].messages[2])[0]["is_error"] is True
    assert events[-1].reason is EndReason.COMPLETED and provider.invalid == []


async def test_invalid_input_says_which_field_and_why(tmp_path):
    provider = ScriptedProvider(
        Response([tool_use("Look", {"value": 3, "extra": 1}, "toolu_v")]), Response([text("ok")])
    )
    engine = make_engine(provider, [make_tool("Look", Probe(), safe=True)], tmp_path)

    events = await run_turn(engine, "go")

    (finished,) = of_type(events, ToolCallFinished)
    message = finished.result["content"]
    assert finished.is_error
    assert message.startswith("Invalid input for Look:")
    assert "value: Input should be a valid string" in message
    assert "extra: unexpected field" in message


async def test_a_failing_tool_does_not_cancel_its_siblings(tmp_path):
    probe = Probe()
    tools = [
        make_tool("Boom", probe, safe=True, behaviour="raise"),
        make_tool("Nope", probe, safe=True, behaviour="tool_error"),
        make_tool("Look", probe, safe=True),
    ]
    calls = [tool_use("Boom", {}), tool_use("Nope", {"value": "it"}), tool_use("Look", {})]
    provider = ScriptedProvider(Response(calls), Response([text("ok")]))
    engine = make_engine(provider, tools, tmp_path)

    events = await run_turn(engine, "go")

    results = results_of(provider.requests[1].messages[2])
    assert results[0]["is_error"] and "Boom failed: RuntimeError: boom" in results[0]["content"]
    assert results[1]["is_error"] and results[1]["content"] == "Nope cannot do it"
    assert results[2] == {
        "type": "tool_result",
        "tool_use_id": calls[2]["id"],
        "content": "Look did x",
    }
    assert events[-1].reason is EndReason.COMPLETED


async def test_safe_calls_run_concurrently_and_unsafe_ones_alone_in_order(tmp_path):
    probe = Probe()
    tools = [make_tool("Look", probe, safe=True), make_tool("Change", probe, safe=False)]
    calls = [
        tool_use("Look", {"value": "1"}),
        tool_use("Look", {"value": "2"}),
        tool_use("Look", {"value": "3"}),
        tool_use("Change", {"value": "4"}),
        tool_use("Change", {"value": "5"}),
        tool_use("Look", {"value": "6"}),
    ]
    provider = ScriptedProvider(Response(calls), Response([text("ok")]))
    engine = make_engine(provider, tools, tmp_path, streaming=False)

    await run_turn(engine, "go")

    assert probe.max_running == 3  # the three reads overlapped
    order = probe.order
    assert order.index("start:Change:4") > max(order.index(f"end:Look:{i}") for i in "123")
    assert order.index("start:Change:5") > order.index("end:Change:4")
    assert order.index("start:Look:6") > order.index("end:Change:5")
    results = results_of(provider.requests[1].messages[2])
    assert [r["tool_use_id"] for r in results] == [c["id"] for c in calls]


async def test_safe_tool_starts_while_the_model_is_still_streaming(tmp_path):
    probe = Probe()
    # The provider will not finish its message until the tool has started:
    # only streaming tool execution can make progress here.
    response = Response(
        [tool_use("Look", {"value": "early"}), text("more text")], gate=probe.started
    )
    provider = ScriptedProvider(response, Response([text("ok")]))
    engine = make_engine(provider, [make_tool("Look", probe, safe=True)], tmp_path)

    events = await asyncio.wait_for(run_turn(engine, "go"), timeout=10)

    assert events[-1].reason is EndReason.COMPLETED
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("ToolCallRunning") < kinds.index("AssistantMessage")


async def test_tool_use_is_detected_from_blocks_not_stop_reason(tmp_path):
    provider = ScriptedProvider(
        Response([tool_use("Look", {})], stop_reason="end_turn"), Response([text("ok")])
    )
    engine = make_engine(provider, [make_tool("Look", Probe(), safe=True)], tmp_path)

    events = await run_turn(engine, "go")

    assert len(provider.requests) == 2 and len(of_type(events, ToolCallFinished)) == 1


async def test_max_turns_runs_the_last_turns_tools_then_stops(tmp_path):
    probe = Probe()
    provider = ScriptedProvider(Response([tool_use("Look", {})]))
    engine = make_engine(provider, [make_tool("Look", probe, safe=True)], tmp_path, max_turns=1)

    events = await run_turn(engine, "go")

    assert probe.order == ["start:Look:x", "end:Look:x"]
    assert len(provider.requests) == 1
    assert events[-1].reason is EndReason.MAX_TURNS and events[-1].turns == 1
    assert results_of(engine.messages[-1])[0]["content"] == "Look did x"


async def test_denied_permission_becomes_a_result_and_the_loop_goes_on(tmp_path):
    probe = Probe()
    provider = ScriptedProvider(Response([tool_use("Change", {})]), Response([text("ok")]))
    tools = [make_tool("Change", probe, safe=False)]
    engine = make_engine(provider, tools, tmp_path, mode=PermissionMode.DEFAULT)

    events = await run_turn(engine, "go")

    (finished,) = of_type(events, ToolCallFinished)
    assert finished.status == "denied" and finished.is_error
    assert "non-interactive" in finished.result["content"]
    assert probe.order == []  # it never ran
    assert events[-1].reason is EndReason.COMPLETED


async def test_a_question_is_an_event_the_consumer_answers(tmp_path):
    """No callback: the question comes on the event stream with what to show, and
    the consumer answers it there."""
    probe = Probe()
    provider = ScriptedProvider(
        Response([tool_use("Change", {"value": "1"}, "toolu_c")]), Response([text("ok")])
    )
    tools = [make_tool("Change", probe, safe=False)]
    engine = make_engine(provider, tools, tmp_path, mode=PermissionMode.DEFAULT)

    asked = []
    async for event in engine.submit_message("go"):
        if isinstance(event, ToolPermissionRequested):
            asked.append(event.question.request)
            assert probe.order == []  # it waits for the answer
            event.question.answer(PermissionAnswer(allow=True))

    (request,) = asked
    assert (request.tool_use_id, request.tool_name, request.title) == (
        "toolu_c",
        "Change",
        "Use Change",
    )
    assert (request.summary, request.input, request.rules) == ("1", {"value": "1"}, ("Change",))
    assert probe.order == ["start:Change:1", "end:Change:1"]


async def test_allow_for_session_answers_once_for_the_same_tool(tmp_path):
    asked = []

    async def approver(request):
        asked.append(request)
        return PermissionAnswer(allow=True, scope="session")

    probe = Probe()
    provider = ScriptedProvider(
        Response([tool_use("Change", {"value": "1"})]),
        Response([tool_use("Change", {"value": "2"})]),
        Response([text("ok")]),
    )
    tools = [make_tool("Change", probe, safe=False)]
    engine = make_engine(provider, tools, tmp_path, mode=PermissionMode.DEFAULT)

    events = await run_turn(engine, "go", approver)

    assert len(asked) == 1 and asked[0].tool_name == "Change" and asked[0].summary == "1"
    assert len(of_type(events, ToolPermissionRequested)) == 1
    assert [e.status for e in of_type(events, ToolCallFinished)] == ["done", "done"]


async def test_interrupt_at_a_permission_question_stops_the_whole_turn(tmp_path):
    asked = []

    async def approver(request):
        asked.append(request.tool_use_id)
        return PermissionAnswer(allow=False, interrupt=True)

    probe = Probe()
    provider = ScriptedProvider(
        Response(
            [
                tool_use("Change", {"value": "1"}, "toolu_a"),
                tool_use("Change", {"value": "2"}, "toolu_b"),
            ]
        ),
        Response([text("after")]),
    )
    tools = [make_tool("Change", probe, safe=False)]
    engine = make_engine(provider, tools, tmp_path, mode=PermissionMode.DEFAULT)

    events = await run_turn(engine, "go", approver)

    assert asked == ["toolu_a"]  # the second call was never put to the person
    assert probe.order == []
    assert [e.status for e in of_type(events, ToolCallFinished)] == ["interrupted", "interrupted"]
    assert events[-1].reason is EndReason.ABORTED_TOOLS
    assert len(provider.requests) == 1  # no request until the person writes again
    results = results_of(engine.messages[-1])
    assert [r["tool_use_id"] for r in results] == ["toolu_a", "toolu_b"]
    assert all(r["is_error"] for r in results)
    assert engine.messages[-1]["content"][-1] == {"type": "text", "text": INTERRUPT_MARKER}

    await run_turn(engine, "try something else")
    assert len(provider.requests) == 2 and provider.invalid == []


async def test_a_plain_no_refuses_one_call_and_the_turn_carries_on(tmp_path):
    async def approver(request):
        return PermissionAnswer(allow=request.input["value"] == "2", feedback="not that one")

    probe = Probe()
    provider = ScriptedProvider(
        Response([tool_use("Change", {"value": "1"}), tool_use("Change", {"value": "2"})]),
        Response([text("ok")]),
    )
    tools = [make_tool("Change", probe, safe=False)]
    engine = make_engine(provider, tools, tmp_path, mode=PermissionMode.DEFAULT)

    events = await run_turn(engine, "go", approver)

    assert [e.status for e in of_type(events, ToolCallFinished)] == ["denied", "done"]
    assert probe.order == ["start:Change:2", "end:Change:2"]
    assert events[-1].reason is EndReason.COMPLETED and len(provider.requests) == 2


async def test_deny_rule_hides_the_tool_from_the_model(tmp_path):
    provider = ScriptedProvider(Response([text("ok")]))
    tools = [make_tool("Look", Probe(), safe=True), make_tool("Change", Probe(), safe=False)]
    engine = make_engine(provider, tools, tmp_path, deny=["Change"])

    await run_turn(engine, "go")

    assert [t["name"] for t in provider.requests[0].tools] == ["Look"]


async def test_api_retries_are_reported(tmp_path):
    provider = ScriptedProvider(Response([text("ok")], retries=2))
    engine = make_engine(provider, [], tmp_path)

    events = await run_turn(engine, "go")

    assert [e.attempt for e in of_type(events, ApiRetry)] == [1, 2]
    assert events[-1].reason is EndReason.COMPLETED


async def test_abort_mid_stream_keeps_what_was_seen_and_continues_validly(tmp_path):
    provider = ScriptedProvider(
        Response(
            [text("Partial answer"), tool_use("Look", {}), text("never")], hang_after_blocks=2
        ),
        Response([text("Continuing.")]),
    )
    engine = make_engine(provider, [make_tool("Look", Probe(), safe=True)], tmp_path)

    events = []
    async for event in engine.submit_message("go"):
        events.append(event)
        if isinstance(event, ToolCallStarted):
            engine.interrupt()

    assert events[-1].reason is EndReason.ABORTED_STREAMING
    (assistant,) = of_type(events, AssistantMessage)
    assert assistant.message["content"][0] == text("Partial answer")
    last = engine.messages[-1]
    assert results_of(last)[0]["tool_use_id"] == assistant.message["content"][1]["id"]
    assert last["content"][-1] == text(INTERRUPT_MARKER)

    events = await run_turn(engine, "please go on")
    assert events[-1].reason is EndReason.COMPLETED
    assert provider.invalid == []
    merged = provider.requests[1].messages[-1]["content"]
    assert merged[0]["type"] == "tool_result" and merged[-1] == text("please go on")


async def test_abort_right_at_request_start_sends_nothing_and_stays_valid(tmp_path):
    provider = ScriptedProvider(Response([text("ok")]))
    engine = make_engine(provider, [], tmp_path)

    events = []
    async for event in engine.submit_message("first"):
        events.append(event)
        if isinstance(event, RequestStarted):
            engine.interrupt()
    assert events[-1].reason is EndReason.ABORTED_STREAMING
    assert not of_type(events, AssistantMessage)
    assert provider.requests == []  # the aborted request never left

    await run_turn(engine, "second")
    assert provider.invalid == []
    first_message = provider.requests[0].messages[0]["content"]
    assert first_message[0] == text("first") and first_message[-1] == text("second")


async def test_abort_while_tools_run_interrupts_them_and_fills_in_results(tmp_path):
    probe = Probe()
    tools = [
        make_tool("Wait", probe, safe=True, behaviour="wait"),
        make_tool("Change", probe, safe=False),
    ]
    calls = [tool_use("Wait", {}), tool_use("Change", {})]
    provider = ScriptedProvider(Response(calls), Response([text("ok")]))
    engine = make_engine(provider, tools, tmp_path)

    events = []
    async for event in engine.submit_message("go"):
        events.append(event)
        if isinstance(event, ToolCallRunning) and event.name == "Wait":
            engine.interrupt()

    assert events[-1].reason is EndReason.ABORTED_TOOLS
    statuses = {e.name: e.status for e in of_type(events, ToolCallFinished)}
    assert statuses == {"Wait": "interrupted", "Change": "interrupted"}
    assert "start:Change:x" not in probe.order  # the unsafe call never started
    results = results_of(engine.messages[-1])
    assert [r["tool_use_id"] for r in results] == [c["id"] for c in calls]
    assert all(r["is_error"] for r in results)
    assert of_type(events, UserMessage)[-1].message is engine.messages[-1]

    await run_turn(engine, "next")
    assert provider.invalid == []


async def test_model_error_after_streamed_tool_calls_leaves_a_valid_conversation(tmp_path):
    probe = Probe()
    provider = ScriptedProvider(
        Response([text("Reading."), tool_use("Change", {}), text("more")], fail_after_blocks=2),
        Response([text("Recovered.")]),
    )
    engine = make_engine(provider, [make_tool("Change", probe, safe=False)], tmp_path)

    events = await run_turn(engine, "go")

    assert events[-1].reason is EndReason.MODEL_ERROR
    assert events[-1].error == "API Error 500: stream broke"
    assert probe.order == []  # an unsafe call never runs on a broken response
    result = results_of(engine.messages[-1])[0]
    assert result["is_error"] and "model's response failed" in result["content"]

    events = await run_turn(engine, "try again")
    assert events[-1].reason is EndReason.COMPLETED and provider.invalid == []


async def test_model_error_before_anything_streamed(tmp_path):
    provider = ScriptedProvider(ModelError("API Error 400: bad request", status=400))
    engine = make_engine(provider, [], tmp_path)

    events = await run_turn(engine, "go")

    assert events[-1].reason is EndReason.MODEL_ERROR
    assert events[-1].error == "API Error 400: bad request"
    assert engine.messages == [{"role": "user", "content": [text("go")]}]


async def test_closing_the_event_stream_early_cancels_running_tools(tmp_path):
    probe = Probe()
    provider = ScriptedProvider(Response([tool_use("Wait", {})]))
    engine = make_engine(
        provider, [make_tool("Wait", probe, safe=True, behaviour="wait")], tmp_path
    )

    stream = engine.submit_message("go")
    async for event in stream:
        if isinstance(event, ToolCallRunning):
            break
    await stream.aclose()
    await asyncio.sleep(0)  # let the cancelled tool's finally clause run

    assert probe.running == 0 and probe.order[-1] == "end:Wait:x"
    assert not engine.busy
