"""The whole engine against the fake Messages API: real SDK, real SSE, real tools.

Every request the server receives is validated like the real API would, so
"the next request is valid" is checked on the wire, not assumed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentcli.engine.events import (
    ApiRetry,
    AssistantMessage,
    EndReason,
    Event,
    TextDelta,
    ToolCallFinished,
    ToolCallRunning,
    TurnEnded,
)
from agentcli.engine.query_engine import QueryEngine
from agentcli.permissions.types import PermissionMode
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.tools.edit import EditTool
from agentcli.tools.read import ReadTool
from tests.engine.harness import answer_questions, make_engine
from tests.engine.scripted import Probe, make_tool
from tests.fakeapi import cut_stream, hang, http_error, reply, stream_error, text, tool_use

_providers: list[AnthropicProvider] = []


@pytest.fixture(autouse=True)
async def close_providers():
    """Close each test's HTTP clients inside its own event loop."""
    yield
    while _providers:
        await _providers.pop().aclose()


def engine_for(
    server, root: Path, *, extra_tools=(), mode=PermissionMode.ACCEPT_EDITS, max_turns=None
) -> QueryEngine:
    provider = AnthropicProvider(
        api_key="test-key",
        base_url=server.base_url,
        retry=RetryPolicy(max_retries=3, base_delay_s=0.0),
    )
    _providers.append(provider)
    return make_engine(
        provider,
        [ReadTool(), EditTool(), *extra_tools],
        root,
        mode=mode,
        max_turns=max_turns,
        model="claude-sonnet-5-5",
        system=[{"type": "text", "text": "You are a test agent."}],
    )


async def run(engine: QueryEngine, prompt: str) -> list[Event]:
    events = []
    async for event in engine.submit_message(prompt):
        answer_questions(event)  # as headless mode does
        events.append(event)
    return events


def assert_all_requests_valid(server) -> None:
    rejected = [(r.status, r.error) for r in server.requests if r.status == 400]
    assert rejected == [], f"the server rejected requests: {rejected}"


async def test_seed_change_value_to_2(fake_api, tmp_path):
    config = tmp_path / "config.py"
    config.write_text("name = 'demo'\nvalue = 1\n")
    fake_api.enqueue(reply(text("Let me read it."), tool_use("Read", {"file_path": str(config)})))
    fake_api.enqueue(
        reply(
            tool_use(
                "Edit",
                {"file_path": str(config), "old_string": "value = 1", "new_string": "value = 2"},
            )
        )
    )
    fake_api.enqueue(reply(text("Changed value to 2 in config.py.")))
    engine = engine_for(fake_api, tmp_path)

    events = await run(engine, "Change value to 2")

    assert config.read_text() == "name = 'demo'\nvalue = 2\n"
    assert events[-1].reason is EndReason.COMPLETED and events[-1].turns == 3
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).endswith(
        "Changed value to 2 in config.py."
    )
    second = fake_api.requests[1].body["messages"]
    read_result = second[2]["content"][0]
    assert read_result["type"] == "tool_result" and "value = 1" in read_result["content"]
    assert fake_api.requests[0].body["tools"][0]["name"] == "Read"
    assert_all_requests_valid(fake_api)
    assert engine.usage.output_tokens > 0 and engine.cost_usd > 0


async def test_parallel_reads_all_answered_in_call_order(fake_api, tmp_path):
    paths = []
    for name in "abc":
        path = tmp_path / f"{name}.txt"
        path.write_text(f"content of {name}\n")
        paths.append(path)
    calls = [tool_use("Read", {"file_path": str(p)}) for p in paths]
    fake_api.enqueue(reply(*calls))
    fake_api.enqueue(reply(text("Read all three.")))

    events = await run(engine_for(fake_api, tmp_path), "read a, b and c")

    assert events[-1].reason is EndReason.COMPLETED
    results = fake_api.requests[1].body["messages"][2]["content"]
    assert [r["tool_use_id"] for r in results] == [c.id for c in calls]
    assert [("content of " + n) in r["content"] for r, n in zip(results, "abc", strict=True)] == [
        True
    ] * 3
    assert_all_requests_valid(fake_api)


async def test_unknown_tool_and_bad_input_get_error_results(fake_api, tmp_path):
    fake_api.enqueue(reply(tool_use("Fly", {"to": "moon"}), tool_use("Read", {"path": "x"})))
    fake_api.enqueue(reply(text("I see.")))

    events = await run(engine_for(fake_api, tmp_path), "go")

    results = fake_api.requests[1].body["messages"][2]["content"]
    assert results[0]["is_error"] and "No such tool: Fly" in results[0]["content"]
    assert results[1]["is_error"] and "file_path: Field required" in results[1]["content"]
    assert "path: unexpected field" in results[1]["content"]
    assert events[-1].reason is EndReason.COMPLETED
    assert_all_requests_valid(fake_api)


async def test_max_turns_stops_before_the_next_request(fake_api, tmp_path):
    (tmp_path / "a.txt").write_text("a\n")
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(tmp_path / "a.txt")})))

    events = await run(engine_for(fake_api, tmp_path, max_turns=1), "go")

    assert events[-1].reason is EndReason.MAX_TURNS
    assert len(fake_api.requests) == 1
    assert [e.status for e in events if isinstance(e, ToolCallFinished)] == ["done"]


@pytest.mark.parametrize(
    "failure",
    [
        http_error(429, retry_after="0"),
        http_error(529),
        http_error(500),
        cut_stream(reply(text("never seen")), after_events=1),
        stream_error(reply(text("x")), after_events=1, error_type="overloaded_error"),
    ],
    ids=["429", "529", "500", "cut-before-content", "overloaded-event-before-content"],
)
async def test_transient_failures_are_retried_and_reported(fake_api, tmp_path, failure):
    fake_api.enqueue(failure)
    fake_api.enqueue(reply(text("Recovered.")))

    events = await run(engine_for(fake_api, tmp_path), "hello")

    retries = [e for e in events if isinstance(e, ApiRetry)]
    assert len(retries) == 1 and retries[0].attempt == 1
    assert events[-1].reason is EndReason.COMPLETED
    (answer,) = [e for e in events if isinstance(e, AssistantMessage)]
    assert answer.message["content"] == [{"type": "text", "text": "Recovered."}]
    assert len(fake_api.requests) == 2


async def test_retry_after_is_honoured(fake_api, tmp_path):
    fake_api.enqueue(http_error(429, retry_after="0.05"))
    fake_api.enqueue(reply(text("ok")))

    events = await run(engine_for(fake_api, tmp_path), "hello")

    (retry,) = [e for e in events if isinstance(e, ApiRetry)]
    assert retry.delay_s == pytest.approx(0.05) and retry.status == 429


async def test_retries_give_up_after_the_limit(fake_api, tmp_path):
    for _ in range(4):
        fake_api.enqueue(http_error(529))

    events = await run(engine_for(fake_api, tmp_path), "hello")

    assert len([e for e in events if isinstance(e, ApiRetry)]) == 3
    assert events[-1].reason is EndReason.MODEL_ERROR
    assert events[-1].error.startswith("API Error 529")


@pytest.mark.parametrize("status", [400, 401])
async def test_client_errors_are_not_retried_and_keep_the_api_message(fake_api, tmp_path, status):
    fake_api.enqueue(http_error(status, message=f"custom message for {status}"))

    events = await run(engine_for(fake_api, tmp_path), "hello")

    assert not [e for e in events if isinstance(e, ApiRetry)]
    assert events[-1] == TurnEnded(
        EndReason.MODEL_ERROR,
        1,
        events[-1].usage,
        f"API Error {status}: custom message for {status}",
    )
    assert len(fake_api.requests) == 1


async def test_stream_cut_after_content_ends_with_model_error_and_stays_valid(fake_api, tmp_path):
    (tmp_path / "a.txt").write_text("a\n")
    read = tool_use("Read", {"file_path": str(tmp_path / "a.txt")})
    # message_start, ping, text start, 2 deltas, text stop, tool start, tool deltas..., cut
    fake_api.enqueue(
        cut_stream(reply(text("Reading now."), read, text("and more")), after_events=11)
    )
    fake_api.enqueue(reply(text("Back again.")))
    engine = engine_for(fake_api, tmp_path)

    events = await run(engine, "go")

    assert events[-1].reason is EndReason.MODEL_ERROR
    assert "cut off" in events[-1].error
    assert not [e for e in events if isinstance(e, ApiRetry)]  # never replayed after content

    events = await run(engine, "try again")
    assert events[-1].reason is EndReason.COMPLETED
    assert_all_requests_valid(fake_api)
    sent = fake_api.requests[1].body["messages"]
    assert sent[1]["role"] == "assistant" and sent[1]["content"][0]["text"].startswith("Reading")


async def test_abort_mid_stream_then_a_valid_next_request(fake_api, tmp_path):
    stuck = hang(reply(text("This answer will be interrupted halfway")), after_events=4)
    fake_api.enqueue(stuck)
    fake_api.enqueue(reply(text("Fresh answer.")))
    engine = engine_for(fake_api, tmp_path)

    events = []
    async for event in engine.submit_message("tell me a story"):
        events.append(event)
        if isinstance(event, TextDelta):
            engine.interrupt()

    assert events[-1].reason is EndReason.ABORTED_STREAMING
    await asyncio.to_thread(fake_api.requests[0].finished.wait, 5)
    assert fake_api.requests[0].outcome == "client_disconnected"

    events = await run(engine, "something else")
    assert events[-1].reason is EndReason.COMPLETED
    assert_all_requests_valid(fake_api)
    last = fake_api.requests[1].body["messages"][-1]["content"]
    assert last[-1]["text"] == "something else"


async def test_abort_mid_tool_then_a_valid_next_request(fake_api, tmp_path):
    probe = Probe()
    waiter = make_tool("Wait", probe, safe=True, behaviour="wait")
    fake_api.enqueue(reply(text("Waiting."), tool_use("Wait", {})))
    fake_api.enqueue(reply(text("Done waiting.")))
    engine = engine_for(fake_api, tmp_path, extra_tools=[waiter])

    events = []
    running = answered = False
    async for event in engine.submit_message("wait for it"):
        events.append(event)
        # The safe tool may start while the answer still streams; "mid-tool" is
        # once it runs and the answer is complete (it waits until cancelled).
        running = running or isinstance(event, ToolCallRunning)
        answered = answered or isinstance(event, AssistantMessage)
        if running and answered:
            engine.interrupt()

    assert events[-1].reason is EndReason.ABORTED_TOOLS
    assert probe.order[0] == "start:Wait:x" and probe.running == 0

    events = await run(engine, "never mind")
    assert events[-1].reason is EndReason.COMPLETED
    assert_all_requests_valid(fake_api)
    results = fake_api.requests[1].body["messages"][2]["content"]
    assert results[0]["type"] == "tool_result" and results[0]["is_error"] is True
