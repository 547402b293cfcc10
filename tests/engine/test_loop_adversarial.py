"""Adversarial tests of the loop's promises, at the provider seam.

The promises under attack (engine/loop.py, engine/orchestration.py):

- every `tool_use` gets exactly one `tool_result` with its id, in call order,
  in one user message, on every path;
- the next request is always one the real API accepts;
- the last event is always exactly one `TurnEnded`;
- no tool task (nor the model stream) is left running after the turn ends;
- abort stops everything promptly.

Nothing here sleeps to wait: tests wait on asyncio events, on the event
stream, or on a FIFO written by a hook process. `asyncio.wait_for` bounds are
only there to turn a hang (a broken promise) into a failure.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import normalize_for_api, user_message
from agentcli.core.usage import Usage
from agentcli.engine.events import (
    AssistantMessage,
    EndReason,
    Event,
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
from agentcli.providers.base import (
    BlockCompleted,
    ModelError,
    ModelRequest,
    ProviderEvent,
    StreamStarted,
    TextChunk,
)
from agentcli.tools.base import Tool, ToolContext, ToolResult
from tests.engine.harness import Answerer, answer_questions, make_engine, of_type, refuse
from tests.engine.scripted import (
    EchoInput,
    Probe,
    Response,
    ScriptedProvider,
    check_valid_request,
    make_tool,
    text,
    tool_use,
)
from tests.fakeapi.validation import validate_request

BOUND_S = 5.0  # a generous bound: every turn here should end in milliseconds

# -- a provider at the seam that can do anything ---------------------------------

StreamFn = Callable[[ModelRequest, AbortSignal], AsyncIterator[ProviderEvent]]
Step = Response | ModelError | StreamFn


def api_problem(messages: list[dict[str, Any]], request: ModelRequest | None = None) -> str | None:
    """What the real API would say about these messages (None when accepted)."""
    try:
        check_valid_request(messages)
    except AssertionError as problem:
        return str(problem)
    body: dict[str, Any] = {"model": "claude-test", "max_tokens": 100, "messages": messages}
    if request is not None:
        body.update(model=request.model, max_tokens=request.max_tokens, tools=request.tools)
        if request.system:
            body["system"] = request.system
    return validate_request(body)


def next_request_problem(conversation: list[dict[str, Any]]) -> str | None:
    """The problem of the request a follow-up prompt would send now."""
    return api_problem(normalize_for_api([*conversation, user_message("next prompt")]))


class SeamProvider:
    """Plays `Response`s like ScriptedProvider, or any async generator function.

    Every request is checked with both the scripted checker and the fake
    server's validator (which also rejects whitespace-only text, as the API does).
    """

    name = "seam"

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.requests: list[ModelRequest] = []
        self.invalid: list[str] = []

    async def stream(
        self, request: ModelRequest, abort: AbortSignal
    ) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        problem = api_problem(request.messages, request)
        if problem is not None:
            self.invalid.append(problem)
            raise ModelError(f"API Error 400: {problem}", status=400)
        assert self.steps, "the seam provider has no response left"
        step = self.steps.pop(0)
        if isinstance(step, Response | ModelError):
            source = ScriptedProvider(step).stream(request, abort)
        else:
            source = step(request, abort)
        async for event in source:
            yield event


def stream_of(*events: ProviderEvent, then: Callable[[], Any] | None = None) -> StreamFn:
    """A step that yields `events`, then awaits `then()` (e.g. raises, or waits)."""

    async def step(request: ModelRequest, abort: AbortSignal) -> AsyncIterator[ProviderEvent]:
        yield StreamStarted("msg_seam", request.model, Usage(10, 1))
        for event in events:
            yield event
            await asyncio.sleep(0)
        if then is not None:
            await then()

    return step


# -- tools -----------------------------------------------------------------------

RunFn = Callable[[EchoInput, ToolContext], Any]


def fn_tool(
    name: str,
    run: RunFn,
    *,
    safe: bool = False,
    read_only: bool | None = None,
    summary: Callable[[EchoInput], str] | None = None,
    concurrency: Callable[[EchoInput], bool] | None = None,
) -> Tool:
    """A tool whose `run` is the given coroutine function."""

    class FnTool(Tool):
        input_model = EchoInput
        concurrency_safe = safe

        @property
        def description(self) -> str:
            return f"test tool {name}"

        def is_read_only(self, inp: Any) -> bool:
            return safe if read_only is None else read_only

        def is_concurrency_safe(self, inp: Any) -> bool:
            return concurrency(inp) if concurrency is not None else safe

        def summary(self, inp, workspace):
            return summary(inp) if summary is not None else inp.value

        async def run(self, inp: EchoInput, ctx: ToolContext) -> ToolResult:
            return await run(inp, ctx)

    FnTool.name = name
    return FnTool()


# -- driving a turn --------------------------------------------------------------


async def drive(
    engine,
    prompt: str,
    on_event: Callable[[Event], Any] | None = None,
    *,
    bound: float = BOUND_S,
    answer: Answerer = refuse,
) -> list[Event]:
    """Run one submit_message to its end, calling `on_event` on every event and
    answering each permission question with `answer`.

    Checks the framing promise: exactly one TurnEnded, and it is last.
    """
    events: list[Event] = []

    async def consume() -> None:
        async for event in engine.submit_message(prompt):
            answer_questions(event, answer)
            events.append(event)
            if on_event is not None:
                on_event(event)

    await asyncio.wait_for(consume(), bound)
    assert events and isinstance(events[-1], TurnEnded), f"last event: {events[-1:]}"
    assert sum(isinstance(e, TurnEnded) for e in events) == 1
    assert not engine.busy
    return events


def live_engine_tasks() -> list[asyncio.Task[Any]]:
    """Tool tasks and model streams that are still running."""
    return [
        task
        for task in asyncio.all_tasks()
        if not task.done()
        and (task.get_name().startswith("tool:") or task.get_name() == "model-stream")
    ]


def results_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in message["content"] if b["type"] == "tool_result"]


def assert_paired(engine, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The message after the assistant message holding `calls` answers each, in order."""
    ids = [c["id"] for c in calls]
    holders = [
        i
        for i, m in enumerate(engine.messages)
        if m["role"] == "assistant" and any(b.get("id") in ids for b in m["content"])
    ]
    assert len(holders) == 1, "the calls must be in exactly one assistant message"
    following = engine.messages[holders[0] + 1]
    assert following["role"] == "user"
    results = results_of(following)
    assert [r["tool_use_id"] for r in results] == ids
    assert following["content"][: len(results)] == results, "tool results must come first"
    all_results = [
        b["tool_use_id"]
        for m in engine.messages
        if m["role"] == "user"
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    for tool_use_id in ids:
        assert all_results.count(tool_use_id) == 1, f"{tool_use_id} answered more than once"
    return results


def interrupt_on(engine, kind: type, when: Callable[[Any], bool] = lambda e: True):
    fired: list[Event] = []

    def handler(event: Event) -> None:
        if isinstance(event, kind) and when(event) and not fired:
            fired.append(event)
            engine.interrupt()

    return handler


async def follow_up_is_valid(engine, provider) -> list[Event]:
    """A second prompt after whatever happened: the request it sends must be valid."""
    provider.steps.append(Response([text("Carrying on.")]))
    events = await drive(engine, "what now?")
    assert provider.invalid == []
    assert events[-1].reason is EndReason.COMPLETED, events[-1]
    return events


# -- abort while waiting for a permission answer -----------------------------------


async def test_abort_while_the_approver_awaits_an_answer(tmp_path):
    asked = asyncio.Event()
    approver_cancelled = []

    async def approver(request):
        asked.set()
        try:
            await asyncio.Event().wait()  # the person never answers
        except asyncio.CancelledError:
            approver_cancelled.append(request.tool_use_id)
            raise
        raise AssertionError("unreachable")

    probe = Probe()
    calls = [tool_use("Change", {"value": "1"}), tool_use("Change", {"value": "2"})]
    provider = SeamProvider(Response(calls))
    engine = make_engine(
        provider,
        [make_tool("Change", probe, safe=False)],
        tmp_path,
        mode=PermissionMode.DEFAULT,
    )

    events = await drive(
        engine, "go", interrupt_on(engine, ToolPermissionRequested), answer=approver
    )

    assert asked.is_set() and approver_cancelled == [calls[0]["id"]]
    assert events[-1].reason is EndReason.ABORTED_TOOLS
    assert probe.order == []  # neither call ran
    results = assert_paired(engine, calls)
    assert all(r["is_error"] for r in results)
    assert [e.status for e in of_type(events, ToolCallFinished)] == ["interrupted"] * 2
    assert live_engine_tasks() == []
    assert next_request_problem(engine.messages) is None
    await follow_up_is_valid(engine, provider)


async def test_permission_granted_after_the_abort_fired_does_not_start_the_tool(tmp_path):
    """The approver's answer and the abort land in the same step (Esc + a key).

    The abort fired first, so the tool must not start: nothing may run once the
    person has interrupted.
    """
    engine_ref: list[Any] = []

    async def approver(request):
        engine_ref[0].interrupt()
        return PermissionAnswer(allow=True)

    probe = Probe()
    calls = [tool_use("Change", {"value": "1"})]
    provider = SeamProvider(Response(calls))
    engine = make_engine(
        provider,
        [make_tool("Change", probe, safe=False)],
        tmp_path,
        mode=PermissionMode.DEFAULT,
    )
    engine_ref.append(engine)

    events = await drive(engine, "go", answer=approver)

    assert events[-1].reason is EndReason.ABORTED_TOOLS
    assert_paired(engine, calls)
    assert probe.order == [], "the tool started after the turn was interrupted"
    assert not of_type(events, ToolCallRunning)


async def test_two_same_name_calls_in_one_batch_one_denied(tmp_path):
    """Concurrency-safe but not read-only: both ask, the lock serialises the questions."""
    asked = []

    async def approver(request):
        asked.append(request.summary)
        if request.summary == "1":
            return PermissionAnswer(allow=False, feedback="not that one")
        return PermissionAnswer(allow=True)

    ran = []

    async def run(inp, ctx):
        ran.append(inp.value)
        return ToolResult(f"touched {inp.value}")

    tool = fn_tool("Touch", run, safe=True, read_only=False)
    calls = [tool_use("Touch", {"value": "1"}), tool_use("Touch", {"value": "2"})]
    provider = SeamProvider(Response(calls), Response([text("ok")]))
    engine = make_engine(provider, [tool], tmp_path, mode=PermissionMode.DEFAULT)

    events = await drive(engine, "go", answer=approver)

    assert sorted(asked) == ["1", "2"] and ran == ["2"]
    assert events[-1].reason is EndReason.COMPLETED
    results = assert_paired(engine, calls)
    assert results[0]["is_error"] and "not that one" in results[0]["content"]
    assert results[1] == {
        "type": "tool_result",
        "tool_use_id": calls[1]["id"],
        "content": "touched 2",
    }
    assert provider.invalid == []
    assert len(of_type(events, ToolPermissionRequested)) == 2


# -- abort at every other moment ----------------------------------------------------


async def test_abort_from_a_progress_handler_during_a_concurrent_batch(tmp_path):
    probe = Probe()
    tools = [
        make_tool("Wait", probe, safe=True, behaviour="wait"),
        make_tool("Change", probe, safe=False),
    ]
    calls = [
        tool_use("Wait", {"value": "a"}),
        tool_use("Wait", {"value": "b"}),
        tool_use("Wait", {"value": "c"}),
        tool_use("Change", {"value": "d"}),
    ]
    provider = SeamProvider(Response(calls))
    engine = make_engine(provider, tools, tmp_path, streaming=False)
    progress_seen = []

    def on_event(event):
        if isinstance(event, ToolCallProgress):
            progress_seen.append(event.tool_use_id)
            if probe.running == 3:  # the whole batch is running
                engine.interrupt()

    events = await drive(engine, "go", on_event)

    assert probe.max_running == 3
    assert events[-1].reason is EndReason.ABORTED_TOOLS
    assert probe.running == 0 and "start:Change:d" not in probe.order
    results = assert_paired(engine, calls)
    assert all(r["is_error"] for r in results)
    assert {e.tool_use_id: e.status for e in of_type(events, ToolCallFinished)} == {
        c["id"]: "interrupted" for c in calls
    }
    assert live_engine_tasks() == []
    # Every event of a call comes before the TurnEnded, none after its Finished.
    finished_at = {
        e.tool_use_id: i for i, e in enumerate(events) if isinstance(e, ToolCallFinished)
    }
    for i, e in enumerate(events):
        if isinstance(e, ToolCallProgress):
            assert i < finished_at[e.tool_use_id]
    await follow_up_is_valid(engine, provider)


async def test_abort_between_turns_sends_no_second_request(tmp_path):
    probe = Probe()
    calls = [tool_use("Look", {"value": "a"})]
    provider = SeamProvider(Response(calls), Response([text("never sent")]))
    engine = make_engine(provider, [make_tool("Look", probe, safe=True)], tmp_path)

    events = await drive(engine, "go", interrupt_on(engine, UserMessage))

    assert len(provider.requests) == 1
    assert events[-1].reason is EndReason.ABORTED_TOOLS and events[-1].turns == 1
    results = assert_paired(engine, calls)
    assert results[0]["content"] == "Look did a"  # it finished before the abort
    assert engine.messages[-1]["content"] == [text(INTERRUPT_MARKER)]
    provider.steps.clear()
    await follow_up_is_valid(engine, provider)


async def test_abort_when_the_complete_assistant_message_arrives_runs_no_tool(tmp_path):
    probe = Probe()
    calls = [tool_use("Change", {"value": "1"}), tool_use("Change", {"value": "2"})]
    provider = SeamProvider(Response([text("Changing."), *calls]))
    engine = make_engine(provider, [make_tool("Change", probe, safe=False)], tmp_path)

    events = await drive(engine, "go", interrupt_on(engine, AssistantMessage))

    assert probe.order == []
    assert events[-1].reason is EndReason.ABORTED_TOOLS
    results = assert_paired(engine, calls)
    assert all(r["is_error"] and r["content"].startswith("Not run") for r in results)
    assert live_engine_tasks() == []
    await follow_up_is_valid(engine, provider)


async def test_abort_while_an_early_started_call_runs_during_streaming(tmp_path):
    probe = Probe()
    calls = [tool_use("Wait", {"value": "early"})]
    # The response will not end by itself: it hangs after its blocks.
    provider = SeamProvider(Response([*calls, text("and more")], hang_after_blocks=2))
    engine = make_engine(
        provider, [make_tool("Wait", probe, safe=True, behaviour="wait")], tmp_path
    )

    events = await drive(engine, "go", interrupt_on(engine, ToolCallRunning))

    assert events[-1].reason is EndReason.ABORTED_STREAMING
    assert probe.running == 0 and probe.order == ["start:Wait:early", "end:Wait:early"]
    results = assert_paired(engine, calls)
    assert results[0]["is_error"] and "Interrupted" in results[0]["content"]
    assert engine.messages[-1]["content"][-1] == text(INTERRUPT_MARKER)
    assert live_engine_tasks() == []
    await follow_up_is_valid(engine, provider)


async def test_interrupt_when_idle_is_harmless_and_twice_in_a_row_ends_once(tmp_path):
    probe = Probe()
    provider = SeamProvider(
        Response([text("hello")]),
        Response([tool_use("Wait", {})]),
    )
    engine = make_engine(
        provider, [make_tool("Wait", probe, safe=True, behaviour="wait")], tmp_path
    )

    engine.interrupt()
    engine.interrupt("again")
    events = await drive(engine, "hi")
    assert events[-1].reason is EndReason.COMPLETED  # an idle interrupt does not linger

    def twice(event):
        if isinstance(event, ToolCallRunning):
            engine.interrupt("first")
            engine.interrupt("second")

    events = await drive(engine, "go", twice)
    assert events[-1].reason is EndReason.ABORTED_STREAMING or events[-1].reason is (
        EndReason.ABORTED_TOOLS
    )
    assert events[-1].error == "first"
    assert len(of_type(events, ToolCallFinished)) == 1
    assert live_engine_tasks() == []
    engine.interrupt()  # idle again
    await follow_up_is_valid(engine, provider)


async def test_an_already_aborted_signal_sends_nothing(tmp_path):
    provider = SeamProvider(Response([text("never")]))
    engine = make_engine(provider, [], tmp_path)
    signal = AbortSignal()
    signal.abort("before it began")

    events = [e async for e in engine.submit_message("go", abort=signal)]

    assert isinstance(events[-1], TurnEnded) and events[-1].reason is EndReason.ABORTED_STREAMING
    assert provider.requests == []
    assert next_request_problem(engine.messages) is None


# -- tools that misbehave ---------------------------------------------------------


async def test_a_tool_that_swallows_cancellation_once_still_yields_one_result(tmp_path):
    state: dict[str, Any] = {"running": asyncio.Event(), "swallowed": 0, "done": False}

    async def stubborn(inp, ctx):
        state["running"].set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            state["swallowed"] += 1  # ignores the cancellation for a while...
            for _ in range(5):
                await asyncio.sleep(0)
        state["done"] = True
        return ToolResult("cleaned up after being asked to stop")

    probe = Probe()
    tools = [fn_tool("Stubborn", stubborn), make_tool("Change", probe, safe=False)]
    calls = [tool_use("Stubborn", {}), tool_use("Change", {})]
    provider = SeamProvider(Response(calls))
    engine = make_engine(provider, tools, tmp_path)

    def on_event(event):
        if isinstance(event, TurnEnded):
            assert state["done"], "TurnEnded came while the stubborn tool still ran"
        if isinstance(event, ToolCallRunning) and event.name == "Stubborn":
            engine.interrupt()

    events = await drive(engine, "go", on_event)

    assert state["swallowed"] == 1
    assert events[-1].reason is EndReason.ABORTED_TOOLS
    assert probe.order == []
    assert_paired(engine, calls)
    assert live_engine_tasks() == []
    await follow_up_is_valid(engine, provider)


async def test_a_tool_returning_an_empty_list_gets_a_non_empty_result(tmp_path):
    async def empty(inp, ctx):
        return ToolResult([])

    calls = [tool_use("Empty", {})]
    provider = SeamProvider(Response(calls), Response([text("ok")]))
    engine = make_engine(provider, [fn_tool("Empty", empty, safe=True)], tmp_path)

    events = await drive(engine, "go")

    assert events[-1].reason is EndReason.COMPLETED
    (result,) = assert_paired(engine, calls)
    assert result["content"] == "(no output)"
    assert provider.invalid == []


@pytest.mark.parametrize(
    "content",
    [
        [{"type": "text", "text": ""}],
        [{"type": "text", "text": "  \n"}],
        [{"type": "text", "text": "fine"}, {"type": "text", "text": ""}],
    ],
    ids=["empty-text-block", "whitespace-text-block", "one-empty-block-of-two"],
)
async def test_a_tool_returning_empty_text_blocks_still_gives_a_valid_request(tmp_path, content):
    """The engine already turns "" and [] into "(no output)"; a list whose text
    blocks are empty is the same thing to the API, which rejects it (400)."""

    async def hollow(inp, ctx):
        return ToolResult(content)

    calls = [tool_use("Hollow", {})]
    provider = SeamProvider(Response(calls), Response([text("ok")]))
    engine = make_engine(provider, [fn_tool("Hollow", hollow, safe=True)], tmp_path)

    events = await drive(engine, "go")

    assert provider.invalid == []
    assert events[-1].reason is EndReason.COMPLETED


async def test_invalid_json_input_is_an_error_result_and_the_tool_never_runs(tmp_path):
    ran = []

    async def run(inp, ctx):
        ran.append(inp)
        return ToolResult("ran")

    bad = tool_use("Look", {"__invalid_json__": '{"value": "a'})
    good = tool_use("Look", {"value": "b"})
    provider = SeamProvider(Response([bad, good]), Response([text("ok")]))
    engine = make_engine(provider, [fn_tool("Look", run, safe=True)], tmp_path)

    events = await drive(engine, "go")

    assert events[-1].reason is EndReason.COMPLETED
    results = assert_paired(engine, [bad, good])
    assert results[0]["is_error"] and "not valid JSON" in results[0]["content"]
    assert results[1]["content"] == "ran" and len(ran) == 1
    assert provider.invalid == []


async def test_a_tool_whose_summary_raises_still_gets_a_result(tmp_path):
    """`summary()` runs in the loop itself (ToolRunner.add) for the UI header;
    a bug there is "a tool that raises" and must not end the turn without TurnEnded."""

    async def run(inp, ctx):
        return ToolResult("ran")

    def broken_summary(inp):
        raise ValueError("cannot summarise")

    calls = [tool_use("Odd", {"value": "x"})]
    provider = SeamProvider(Response(calls), Response([text("ok")]))
    engine = make_engine(provider, [fn_tool("Odd", run, summary=broken_summary)], tmp_path)

    events = await drive(engine, "go")

    assert_paired(engine, calls)
    assert events[-1].reason is EndReason.COMPLETED
    assert provider.invalid == []


async def test_a_tool_whose_concurrency_check_raises_still_gets_a_result(tmp_path):
    async def run(inp, ctx):
        return ToolResult("ran")

    def broken(inp):
        raise ValueError("cannot parse the command")

    calls = [tool_use("Odd", {"value": "x"}), tool_use("Odd", {"value": "y"})]
    provider = SeamProvider(Response(calls), Response([text("ok")]))
    engine = make_engine(provider, [fn_tool("Odd", run, concurrency=broken)], tmp_path)

    events = await drive(engine, "go")

    assert_paired(engine, calls)
    assert events[-1].reason is EndReason.COMPLETED
    assert provider.invalid == []


async def test_a_tool_raising_cancelled_error_by_itself_does_not_stop_the_turn(tmp_path):
    async def run(inp, ctx):
        inner = asyncio.get_running_loop().create_future()
        inner.cancel()
        await inner  # raises CancelledError though nobody cancelled this call

    calls = [tool_use("Flaky", {}), tool_use("Flaky", {})]
    provider = SeamProvider(Response(calls), Response([text("ok")]))
    engine = make_engine(provider, [fn_tool("Flaky", run, safe=True)], tmp_path)

    events = await drive(engine, "go")

    assert events[-1].reason is EndReason.COMPLETED
    results = assert_paired(engine, calls)
    assert all(r["is_error"] for r in results)
    assert provider.invalid == []


# -- the model failing in odd ways ---------------------------------------------------


async def test_model_error_while_an_early_started_safe_call_runs(tmp_path):
    probe = Probe()
    calls = [tool_use("Wait", {"value": "early"})]

    async def fail_once_running() -> None:
        await probe.started.wait()  # the call runs before the stream breaks
        raise ModelError("API Error 529: Overloaded", status=529)

    provider = SeamProvider(
        stream_of(BlockCompleted(0, calls[0]), then=fail_once_running),
    )
    engine = make_engine(
        provider, [make_tool("Wait", probe, safe=True, behaviour="wait")], tmp_path
    )

    events = await drive(engine, "go")

    assert events[-1].reason is EndReason.MODEL_ERROR
    assert events[-1].error == "API Error 529: Overloaded"
    assert probe.running == 0 and probe.order[-1] == "end:Wait:early"
    (result,) = assert_paired(engine, calls)
    assert result["is_error"]
    assert [e.status for e in of_type(events, ToolCallFinished)] == ["interrupted"]
    assert live_engine_tasks() == []
    await follow_up_is_valid(engine, provider)


async def test_model_error_after_a_safe_call_already_finished_keeps_its_result(tmp_path):
    probe = Probe()
    done = asyncio.Event()
    calls = [tool_use("Look", {"value": "a"}), tool_use("Change", {"value": "b"})]

    async def run(inp, ctx):
        done.set()
        return ToolResult("looked")

    async def fail_after_look() -> None:
        await done.wait()
        raise ModelError("API Error 500: stream broke", status=500)

    provider = SeamProvider(
        stream_of(BlockCompleted(0, calls[0]), BlockCompleted(1, calls[1]), then=fail_after_look)
    )
    tools = [fn_tool("Look", run, safe=True), make_tool("Change", probe, safe=False)]
    engine = make_engine(provider, tools, tmp_path)

    events = await drive(engine, "go")

    assert events[-1].reason is EndReason.MODEL_ERROR
    results = assert_paired(engine, calls)
    assert results[0]["content"] == "looked" and not results[0].get("is_error")
    assert results[1]["is_error"] and probe.order == []
    await follow_up_is_valid(engine, provider)


async def test_a_provider_raising_a_non_model_error_mid_stream(tmp_path):
    calls = [tool_use("Change", {"value": "1"})]

    async def explode() -> None:
        raise KeyError("no such field in the event")

    probe = Probe()
    provider = SeamProvider(
        stream_of(TextChunk(0, "Let me"), BlockCompleted(1, calls[0]), then=explode)
    )
    engine = make_engine(provider, [make_tool("Change", probe, safe=False)], tmp_path)

    events = await drive(engine, "go")

    assert events[-1].reason is EndReason.MODEL_ERROR
    assert "KeyError" in events[-1].error
    assert probe.order == []
    (assistant,) = of_type(events, AssistantMessage)
    assert assistant.message["content"][0] == text("Let me")
    assert_paired(engine, calls)
    assert live_engine_tasks() == []
    await follow_up_is_valid(engine, provider)


async def test_a_stream_that_just_stops_is_not_reported_as_a_user_interrupt(tmp_path):
    provider = SeamProvider(stream_of(TextChunk(0, "Half an ans")))
    engine = make_engine(provider, [], tmp_path)

    events = await drive(engine, "go")

    assert events[-1].reason is EndReason.MODEL_ERROR
    assert text(INTERRUPT_MARKER) not in engine.messages[-1]["content"]


@pytest.mark.parametrize("partial", ["\n\n", "   ", "\n"])
async def test_abort_after_whitespace_only_text_leaves_a_valid_conversation(tmp_path, partial):
    """Models often open a text block with "\\n\\n". If Esc lands right then, the
    partial text is kept as a whitespace-only text block, which the API rejects
    ("text content blocks must contain non-whitespace text") on every later request."""
    never = asyncio.Event()
    provider = SeamProvider(stream_of(TextChunk(0, partial), then=never.wait))
    engine = make_engine(provider, [], tmp_path)

    events = await drive(engine, "go", interrupt_on(engine, TextDelta))

    assert events[-1].reason is EndReason.ABORTED_STREAMING
    assert next_request_problem(engine.messages) is None
    await follow_up_is_valid(engine, provider)


async def test_a_complete_whitespace_only_text_block_before_a_tool_call(tmp_path):
    calls = [tool_use("Look", {})]
    provider = SeamProvider(Response([text("\n\n"), *calls]), Response([text("ok")]))
    engine = make_engine(provider, [make_tool("Look", Probe(), safe=True)], tmp_path)

    events = await drive(engine, "go")

    assert provider.invalid == []
    assert events[-1].reason is EndReason.COMPLETED


# -- a consumer that stops listening ----------------------------------------------


async def _stop_listening_at(engine, prompt: str, when: Callable[[Event], bool]) -> list[Event]:
    events: list[Event] = []
    stream = engine.submit_message(prompt)
    async for event in stream:
        events.append(event)
        if when(event):
            break
    await stream.aclose()
    return events


async def test_a_consumer_that_stops_after_the_tool_calls_leaves_a_valid_conversation(tmp_path):
    """The assistant message with tool_use is appended before the tools run; a
    consumer that closes the stream then (UI torn down, headless killed by a
    timeout wrapper...) leaves that tool_use without a tool_result, and every
    later request of the session is rejected."""
    probe = Probe()
    calls = [tool_use("Change", {"value": "1"})]
    provider = SeamProvider(Response(calls))
    engine = make_engine(
        provider, [make_tool("Change", probe, safe=False, behaviour="wait")], tmp_path
    )

    await _stop_listening_at(engine, "go", lambda e: isinstance(e, ToolCallRunning))

    assert not engine.busy
    assert next_request_problem(engine.messages) is None
    await follow_up_is_valid(engine, provider)


async def test_a_consumer_that_stops_leaves_no_tool_task_running(tmp_path):
    probe = Probe()
    calls = [tool_use("Wait", {"value": "1"}), tool_use("Wait", {"value": "2"})]
    provider = SeamProvider(Response(calls))
    engine = make_engine(
        provider, [make_tool("Wait", probe, safe=True, behaviour="wait")], tmp_path
    )

    await _stop_listening_at(
        engine, "go", lambda e: isinstance(e, ToolCallRunning) and probe.running == 2
    )

    assert live_engine_tasks() == [], "tool tasks still running after the stream was closed"
    assert probe.running == 0


async def test_a_consumer_that_stops_mid_stream_leaves_no_model_stream_running(tmp_path):
    never = asyncio.Event()
    provider = SeamProvider(stream_of(TextChunk(0, "Once upon a time"), then=never.wait))
    engine = make_engine(provider, [], tmp_path)

    await _stop_listening_at(engine, "go", lambda e: isinstance(e, TextDelta))

    assert live_engine_tasks() == [], "the model stream is still open after the stream closed"


async def test_a_consumer_that_stops_at_request_start_then_a_valid_follow_up(tmp_path):
    provider = SeamProvider()
    engine = make_engine(provider, [], tmp_path)

    await _stop_listening_at(engine, "go", lambda e: isinstance(e, RequestStarted))

    assert provider.requests == [] and not engine.busy
    await follow_up_is_valid(engine, provider)


# -- every ending, then a second prompt ----------------------------------------------


def _ending_cases():
    """(id, steps, max_turns, on_event factory) for each way a turn can end."""
    return {
        "completed": ([Response([text("done")])], None, None),
        "max_turns": ([Response([tool_use("Look", {})])], 1, None),
        "model_error_first": ([ModelError("API Error 500: x", status=500)], None, None),
        "model_error_after_tools": (
            [Response([text("a"), tool_use("Look", {}), text("b")], fail_after_blocks=2)],
            None,
            None,
        ),
        "aborted_at_request": ([Response([text("never")])], None, RequestStarted),
        "aborted_streaming": (
            [Response([text("partial"), tool_use("Look", {})], hang_after_blocks=2)],
            None,
            ToolCallStarted,
        ),
        "aborted_tools": ([Response([tool_use("Wait", {})])], None, ToolCallRunning),
        "aborted_between_turns": ([Response([tool_use("Look", {})])], None, UserMessage),
    }


@pytest.mark.parametrize("case", list(_ending_cases()))
async def test_a_second_prompt_after_every_kind_of_ending_is_valid(tmp_path, case):
    steps, max_turns, interrupt_kind = _ending_cases()[case]
    probe = Probe()
    tools = [
        make_tool("Look", probe, safe=True),
        make_tool("Wait", probe, behaviour="wait", safe=True),
    ]
    provider = SeamProvider(*steps)
    engine = make_engine(provider, tools, tmp_path, max_turns=max_turns)
    handler = interrupt_on(engine, interrupt_kind) if interrupt_kind else None

    await drive(engine, "first", handler)
    provider.steps.clear()

    assert live_engine_tasks() == []
    assert next_request_problem(engine.messages) is None
    engine.config.max_turns = None
    await follow_up_is_valid(engine, provider)
    assert provider.requests[-1].messages[-1]["content"][-1] == text("what now?")


# -- hooks ------------------------------------------------------------------------


def _command(script: str) -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": script, "timeout": 30}]}


async def test_pre_tool_use_refusing_one_of_two_same_name_calls(tmp_path):
    probe = Probe()
    calls = [tool_use("Look", {"value": "keep"}), tool_use("Look", {"value": "deny"})]
    provider = SeamProvider(Response(calls), Response([text("ok")]))
    script = "if grep -q '\"deny\"'; then echo 'no, not that one' >&2; exit 2; fi"
    engine = make_engine(
        provider,
        [make_tool("Look", probe, safe=True)],
        tmp_path,
        hooks={"PreToolUse": [{"matcher": "Look", **_command(script)}]},
    )

    events = await drive(engine, "go", bound=30)

    assert events[-1].reason is EndReason.COMPLETED
    results = assert_paired(engine, calls)
    assert results[0]["content"] == "Look did keep"
    assert results[1]["is_error"] and "no, not that one" in results[1]["content"]
    assert probe.order == ["start:Look:keep", "end:Look:keep"]
    assert provider.invalid == []


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "hook-started"
    os.mkfifo(path)
    return path


async def _wait_for_fifo(path: Path) -> None:
    """Block (in a thread) until a hook process writes to the FIFO."""
    await asyncio.wait_for(asyncio.to_thread(path.read_text), BOUND_S)


def _release_fifo_reader(path: Path) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return
    os.close(fd)


async def test_abort_while_a_pre_tool_use_hook_runs_is_prompt(tmp_path):
    fifo = _fifo(tmp_path)
    probe = Probe()
    calls = [tool_use("Change", {})]
    provider = SeamProvider(Response(calls))
    script = f"cat > /dev/null; echo started > {fifo}; sleep 30"
    engine = make_engine(
        provider,
        [make_tool("Change", probe, safe=False)],
        tmp_path,
        hooks={"PreToolUse": [{"matcher": "Change", **_command(script)}]},
    )

    task = asyncio.create_task(drive(engine, "go"))
    try:
        await _wait_for_fifo(fifo)
        engine.interrupt()
        events = await asyncio.wait_for(task, BOUND_S)
    finally:
        _release_fifo_reader(fifo)
        task.cancel()

    assert events[-1].reason is EndReason.ABORTED_TOOLS
    assert probe.order == []
    (result,) = assert_paired(engine, calls)
    assert result["is_error"]
    await follow_up_is_valid(engine, provider)


async def test_abort_while_the_stop_hook_runs_is_prompt(tmp_path):
    """The Stop hook runs in the loop's own task, outside anything the abort
    signal cancels: Esc waits for the hook (up to its 60 s timeout)."""
    fifo = _fifo(tmp_path)
    provider = SeamProvider(Response([text("All done.")]))
    script = f"cat > /dev/null; echo started > {fifo}; sleep 30"
    engine = make_engine(provider, [], tmp_path, hooks={"Stop": [_command(script)]})

    task = asyncio.create_task(drive(engine, "go", bound=60))
    try:
        await _wait_for_fifo(fifo)
        engine.interrupt()
        done, _ = await asyncio.wait({task}, timeout=BOUND_S)
        assert done, "the turn did not end within 5 s of the interrupt (Stop hook still runs)"
        events = task.result()
    finally:
        _release_fifo_reader(fifo)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    assert isinstance(events[-1], TurnEnded)
    assert next_request_problem(engine.messages) is None


async def test_a_hook_stop_from_an_aborted_turn_does_not_leak_into_the_next(tmp_path):
    """A PreToolUse hook said `continue: false`, then the turn was interrupted before
    the loop took that stop. The next prompt's first tool round must not end with it."""
    probe = Probe()
    tools = [
        make_tool("Wait", probe, safe=False, behaviour="wait"),
        make_tool("Look", probe, safe=True),
    ]
    provider = SeamProvider(Response([tool_use("Wait", {})]))
    script = """cat > /dev/null; echo '{"continue": false, "stopReason": "stale stop"}'"""
    engine = make_engine(
        provider, tools, tmp_path, hooks={"PreToolUse": [{"matcher": "Wait", **_command(script)}]}
    )

    events = await drive(engine, "go", interrupt_on(engine, ToolCallRunning), bound=30)
    assert events[-1].reason is EndReason.ABORTED_TOOLS

    provider.steps += [Response([tool_use("Look", {})]), Response([text("Looked.")])]
    events = await drive(engine, "look instead", bound=30)

    assert events[-1].reason is EndReason.COMPLETED, events[-1]
    assert len(provider.requests) == 3 and provider.invalid == []
