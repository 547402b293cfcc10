"""Waiting on the API is visible and bounded: the engine over real sockets.

A port with nothing listening, a server that accepts and never answers, one
that stalls midway, and a time budget that ends the retrying. Nothing here
sleeps: the waits are the provider's own (tiny) timeouts, and what is asserted
is what happened, never how long it took.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from agentcli.engine.events import (
    ApiRetry,
    AssistantMessage,
    EndReason,
    Event,
    TurnEnded,
)
from agentcli.engine.query_engine import QueryEngine
from agentcli.permissions.types import PermissionMode
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy, Timeouts
from agentcli.tools.read import ReadTool
from tests.engine.harness import answer_questions, make_engine
from tests.fakeapi import hang, http_error, reply, text

# "No byte for this long" in these tests: short, yet long enough that a loaded machine
# does not starve a healthy response of it. A good answer is the server's `default`, so a
# spurious extra timeout would cost a retry, never the test.
IDLE_S = 0.2
SILENCE = "no response for 0.2 s"

_providers: list[AnthropicProvider] = []


@pytest.fixture(autouse=True)
async def close_providers():
    """Close each test's HTTP clients inside its own event loop."""
    yield
    while _providers:
        await _providers.pop().aclose()


def engine_at(base_url: str, root: Path, retry: RetryPolicy) -> QueryEngine:
    provider = AnthropicProvider(
        api_key="test-key",
        base_url=base_url,
        retry=retry,
        timeouts=Timeouts(connect_s=5.0, idle_s=IDLE_S),
    )
    _providers.append(provider)
    return make_engine(
        provider,
        [ReadTool()],
        root,
        mode=PermissionMode.ACCEPT_EDITS,
        model="claude-sonnet-5-5",
        system=[{"type": "text", "text": "You are a test agent."}],
    )


async def run(engine: QueryEngine, prompt: str) -> list[Event]:
    events = []
    async for event in engine.submit_message(prompt):
        answer_questions(event)  # as headless mode does
        events.append(event)
    return events


def retries_of(events: list[Event]) -> list[ApiRetry]:
    return [e for e in events if isinstance(e, ApiRetry)]


def closed_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_nothing_listening_is_retried_then_named_with_the_address(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}"
    engine = engine_at(url, tmp_path, RetryPolicy(max_retries=2, base_delay_s=0.0))

    events = await run(engine, "hello")

    retries = retries_of(events)
    assert [(r.attempt, r.max_retries, r.error, r.status) for r in retries] == [
        (1, 2, "connection refused", None),
        (2, 2, "connection refused", None),
    ]
    end = events[-1]
    assert end.reason is EndReason.MODEL_ERROR
    assert end.error.startswith("connection refused; gave up after 3 attempts in ")
    assert url in end.error and "ANTHROPIC_BASE_URL" in end.error and "network" in end.error


async def test_a_server_that_never_answers_is_abandoned_and_retried(fake_api, tmp_path):
    fake_api.enqueue(hang(before_headers=True))
    fake_api.default = reply(text("Here at last."))
    engine = engine_at(fake_api.base_url, tmp_path, RetryPolicy(max_retries=3, base_delay_s=0.0))

    events = await run(engine, "hello")

    retry = retries_of(events)[0]
    assert (retry.attempt, retry.error, retry.status) == (1, SILENCE, None)
    assert events[-1].reason is EndReason.COMPLETED
    (answer,) = [e for e in events if isinstance(e, AssistantMessage)]
    assert answer.message["content"] == [{"type": "text", "text": "Here at last."}]
    first = fake_api.requests[0]
    assert await asyncio.to_thread(first.finished.wait, 5)
    assert first.outcome == "client_disconnected"  # abandoned: the connection was closed


async def test_a_stall_before_any_content_is_retried(fake_api, tmp_path):
    # message_start and ping arrive, then nothing: no content was shown yet.
    fake_api.enqueue(hang(reply(text("never seen")), after_events=2))
    fake_api.default = reply(text("Second try."))
    engine = engine_at(fake_api.base_url, tmp_path, RetryPolicy(max_retries=3, base_delay_s=0.0))

    events = await run(engine, "hello")

    assert retries_of(events)[0].error == SILENCE
    assert events[-1].reason is EndReason.COMPLETED


async def test_a_stall_after_content_ends_the_turn_and_keeps_the_conversation_valid(
    fake_api, tmp_path
):
    # message_start, ping, content_block_start, one delta: then silence.
    stalled = hang(reply(text("The first words of an answer"), chunk_size=10), after_events=4)
    fake_api.enqueue(stalled)
    engine = engine_at(fake_api.base_url, tmp_path, RetryPolicy(max_retries=3, base_delay_s=0.0))

    events = await run(engine, "hello")

    assert retries_of(events) == []  # never replayed once content arrived
    end = events[-1]
    assert end.reason is EndReason.MODEL_ERROR
    assert end.error.startswith(SILENCE)
    assert "cut off midway" in end.error and "not retried" in end.error
    assert len(fake_api.requests) == 1

    fake_api.enqueue(reply(text("Carrying on.")))
    events = await run(engine, "go on")
    assert events[-1].reason is EndReason.COMPLETED
    assert [r.status for r in fake_api.requests] == [200, 200]  # the follow-up was accepted
    sent = fake_api.requests[1].body["messages"]
    assert sent[1] == {"role": "assistant", "content": [{"type": "text", "text": "The first "}]}


async def test_retrying_stops_when_the_time_budget_is_spent(fake_api, tmp_path):
    fake_api.default = hang(before_headers=True)
    # Each attempt waits at least IDLE_S, so a 1 s budget allows a few, never 100.
    policy = RetryPolicy(max_retries=100, base_delay_s=0.0, max_total_s=1.0)
    engine = engine_at(fake_api.base_url, tmp_path, policy)

    events = await run(engine, "hello")

    retries = retries_of(events)
    assert 1 <= len(retries) < 100
    end = events[-1]
    assert end.reason is EndReason.MODEL_ERROR
    attempts = len(retries) + 1
    assert end.error.startswith(f"{SILENCE}; gave up after {attempts} attempts in ")
    assert "the retry time limit of 1 s (AGENTCLI_RETRY_MAX_TOTAL_MS) is spent" in end.error
    assert "a longer AGENTCLI_STREAM_IDLE_TIMEOUT_MS" in end.error  # the server may be slow


async def test_a_backoff_that_would_pass_the_budget_is_not_started(fake_api, tmp_path):
    fake_api.enqueue(http_error(529))
    policy = RetryPolicy(max_retries=8, base_delay_s=60.0, max_total_s=5.0)
    engine = engine_at(fake_api.base_url, tmp_path, policy)

    events = await run(engine, "hello")

    assert retries_of(events) == []
    assert events[-1].error.startswith("API Error 529: Overloaded; gave up after 1 attempt in ")
    assert "retry time limit of 5 s" in events[-1].error
    assert len(fake_api.requests) == 1


async def test_a_retry_after_longer_than_what_is_left_is_not_waited_for(fake_api, tmp_path):
    fake_api.enqueue(http_error(429, retry_after="900"))
    policy = RetryPolicy(max_retries=8, base_delay_s=0.0, max_total_s=600.0)
    engine = engine_at(fake_api.base_url, tmp_path, policy)

    events = await run(engine, "hello")

    assert retries_of(events) == []
    end = events[-1]
    assert end.reason is EndReason.MODEL_ERROR
    assert end.error.startswith("API Error 429: ")
    assert "the server asked to wait 15 min" in end.error
    assert "retry time limit of 10 min" in end.error
    assert len(fake_api.requests) == 1


async def test_a_retry_after_within_the_budget_is_waited_for_in_full(fake_api, tmp_path):
    fake_api.enqueue(http_error(429, retry_after="0.01"), reply(text("ok")))
    policy = RetryPolicy(max_retries=8, base_delay_s=0.0, max_total_s=600.0)
    engine = engine_at(fake_api.base_url, tmp_path, policy)

    events = await run(engine, "hello")

    (retry,) = retries_of(events)
    assert retry.delay_s == pytest.approx(0.01) and retry.status == 429
    assert events[-1].reason is EndReason.COMPLETED


async def test_giving_up_after_max_retries_says_how_many_attempts(fake_api, tmp_path):
    for _ in range(3):
        fake_api.enqueue(http_error(529))
    engine = engine_at(fake_api.base_url, tmp_path, RetryPolicy(max_retries=2, base_delay_s=0.0))

    events = await run(engine, "hello")

    assert len(retries_of(events)) == 2
    end = events[-1]
    assert isinstance(end, TurnEnded) and end.reason is EndReason.MODEL_ERROR
    assert end.error.startswith("API Error 529: Overloaded; gave up after 3 attempts in ")
    assert "ANTHROPIC_BASE_URL" not in end.error  # the API answered: the address is fine
