"""Adversarial loop tests over the wire: the real SDK against the fake Messages API.

The fake server validates every request like the real API (HTTP 400 otherwise),
so "the next request is valid" is checked on the wire. Nothing sleeps to wait;
`asyncio.wait_for` only bounds a hang into a failure.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentcli.engine.events import (
    ApiRetry,
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
from tests.fakeapi import hang, http_error, reply, stream_error, text, tool_use
from tests.fakeapi.sse import stream_events

BOUND_S = 10.0


def engine_for(
    server,
    root: Path,
    *,
    extra_tools=(),
    retry: RetryPolicy | None = None,
    mode: PermissionMode = PermissionMode.ACCEPT_EDITS,
):
    provider = AnthropicProvider(
        api_key="test-key",
        base_url=server.base_url,
        retry=retry or RetryPolicy(max_retries=3, base_delay_s=0.0),
    )
    return make_engine(
        provider,
        [ReadTool(), EditTool(), *extra_tools],
        root,
        mode=mode,
        model="claude-sonnet-5-5",
        system=[{"type": "text", "text": "You are a test agent."}],
    )


async def drive(engine: QueryEngine, prompt: str, on_event=None) -> list[Event]:
    events: list[Event] = []

    async def consume() -> None:
        async for event in engine.submit_message(prompt):
            answer_questions(event)  # as headless mode does
            events.append(event)
            if on_event is not None:
                on_event(event)

    await asyncio.wait_for(consume(), BOUND_S)
    assert isinstance(events[-1], TurnEnded)
    assert sum(isinstance(e, TurnEnded) for e in events) == 1
    return events


def rejected(server) -> list[tuple[int | None, str | None]]:
    return [(r.status, r.error) for r in server.requests if r.status == 400]


async def follow_up(server, engine: QueryEngine) -> list[Event]:
    server.enqueue(reply(text("Carrying on.")))
    events = await drive(engine, "what now?")
    assert rejected(server) == [], f"the server rejected: {rejected(server)}"
    assert events[-1].reason is EndReason.COMPLETED, events[-1]
    body = server.requests[-1].body["messages"]
    assert body[-1]["content"][-1]["text"] == "what now?"
    return events


async def test_abort_during_a_retry_wait_is_prompt_and_sends_nothing_more(fake_api, tmp_path):
    fake_api.enqueue(http_error(529))
    # A 30 s backoff: only the abort can end this turn within the bound.
    engine = engine_for(fake_api, tmp_path, retry=RetryPolicy(max_retries=3, base_delay_s=30.0))

    def on_event(event):
        if isinstance(event, ApiRetry):
            engine.interrupt()

    events = await drive(engine, "hello", on_event)

    assert events[-1].reason is EndReason.ABORTED_STREAMING
    assert len(fake_api.requests) == 1
    await follow_up(fake_api, engine)


async def test_abort_while_a_concurrent_batch_runs_over_http(fake_api, tmp_path):
    (tmp_path / "a.txt").write_text("a\n")
    probe = Probe()
    waiter = make_tool("Wait", probe, safe=True, behaviour="wait")
    calls = [
        tool_use("Read", {"file_path": str(tmp_path / "a.txt")}),
        tool_use("Wait", {"value": "1"}),
        tool_use("Wait", {"value": "2"}),
        tool_use(
            "Edit", {"file_path": str(tmp_path / "a.txt"), "old_string": "a", "new_string": "b"}
        ),
    ]
    fake_api.enqueue(reply(text("Working."), *calls))
    engine = engine_for(fake_api, tmp_path, extra_tools=[waiter])

    def on_event(event):
        if isinstance(event, ToolCallRunning) and probe.running == 2:
            engine.interrupt()

    events = await drive(engine, "go", on_event)

    assert events[-1].reason in (EndReason.ABORTED_TOOLS, EndReason.ABORTED_STREAMING)
    assert probe.running == 0
    assert (tmp_path / "a.txt").read_text() == "a\n"  # the Edit never ran
    finished = [e.tool_use_id for e in events if isinstance(e, ToolCallFinished)]
    assert sorted(finished) == sorted(c.id for c in calls)
    await follow_up(fake_api, engine)
    results = fake_api.requests[1].body["messages"][2]["content"]
    assert [r["tool_use_id"] for r in results[:4]] == [c.id for c in calls]


async def test_model_error_after_an_early_started_read(fake_api, tmp_path):
    (tmp_path / "a.txt").write_text("a\n")
    read = tool_use("Read", {"file_path": str(tmp_path / "a.txt")})
    response = reply(read, text("and then some more text"))
    events_on_wire = stream_events(
        response,
        message_id="m",
        model="x",
        usage={
            "input_tokens": 1,
            "output_tokens": 1,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    )
    first_stop = next(
        i for i, (name, _) in enumerate(events_on_wire) if name == "content_block_stop"
    )
    fake_api.enqueue(
        stream_error(response, after_events=first_stop + 2, error_type="overloaded_error")
    )
    engine = engine_for(fake_api, tmp_path)

    events = await drive(engine, "go")

    assert events[-1].reason is EndReason.MODEL_ERROR
    assert "529" in events[-1].error
    assert [e.tool_use_id for e in events if isinstance(e, ToolCallFinished)] == [read.id]
    await follow_up(fake_api, engine)
    results = fake_api.requests[1].body["messages"][2]["content"]
    assert results[0]["tool_use_id"] == read.id


async def test_abort_on_a_whitespace_only_first_delta_then_a_valid_request(fake_api, tmp_path):
    """The first text delta is "\\n\\n" (common for real models); Esc lands then.
    The kept partial block is whitespace only, and the API answers 400 to every
    later request of the session."""
    stuck = hang(reply(text("\n\nHere is the answer."), chunk_size=2), after_events=4)
    fake_api.enqueue(stuck)
    engine = engine_for(fake_api, tmp_path)

    def on_event(event):
        if isinstance(event, TextDelta):
            engine.interrupt()

    events = await drive(engine, "tell me", on_event)

    assert events[-1].reason is EndReason.ABORTED_STREAMING
    await follow_up(fake_api, engine)


async def test_a_consumer_that_stops_listening_mid_tools_then_a_valid_request(fake_api, tmp_path):
    probe = Probe()
    waiter = make_tool("Wait", probe, safe=False, behaviour="wait")
    fake_api.enqueue(reply(text("Waiting."), tool_use("Wait", {})))
    engine = engine_for(fake_api, tmp_path, extra_tools=[waiter], mode=PermissionMode.BYPASS)

    stream = engine.submit_message("wait for it")
    async for event in stream:
        if isinstance(event, ToolCallRunning):
            break
    else:
        raise AssertionError("the Wait tool never ran")
    await stream.aclose()

    assert not engine.busy and probe.order[0] == "start:Wait:x"
    await follow_up(fake_api, engine)
