"""AnthropicProvider on the wire: what it sends and what it makes of the stream.

Against the fake Messages API (real sockets, real SSE): the headers that carry
the credentials and the API version, the request body, and the events the loop
gets back: chunks as they arrive, each block complete with its parsed tool
input, thinking with its signature, and the usage the API reported.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.core.usage import Usage
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.base import (
    BlockCompleted,
    MessageCompleted,
    ModelRequest,
    ProviderEvent,
    StreamStarted,
    TextChunk,
    ThinkingChunk,
)
from agentcli.providers.retry import RetryPolicy
from tests.fakeapi import reply, text, thinking, tool_use

MODEL = "claude-sonnet-5-5"
HELLO = ModelRequest(model=MODEL, messages=[{"role": "user", "content": "hi"}], max_tokens=100)


@pytest.fixture
async def providers() -> AsyncIterator[list[AnthropicProvider]]:
    made: list[AnthropicProvider] = []
    yield made
    for provider in made:
        await provider.aclose()


def provider_for(server, made: list[AnthropicProvider], **credentials: Any) -> AnthropicProvider:
    provider = AnthropicProvider(
        base_url=server.base_url, retry=RetryPolicy(max_retries=0), **credentials
    )
    made.append(provider)
    return provider


async def collect(provider: AnthropicProvider, request: ModelRequest) -> list[ProviderEvent]:
    return [event async for event in provider.stream(request, AbortSignal())]


async def test_an_api_key_goes_as_a_bearer_token_with_the_api_version(fake_api, providers):
    # As the pinned SDK (anthropic 2.14) sends it.
    fake_api.enqueue(reply(text("Hello!")))

    await collect(provider_for(fake_api, providers, api_key="the-key"), HELLO)

    headers = fake_api.requests[0].headers
    assert headers["authorization"] == "Bearer the-key"
    assert headers["anthropic-version"] == "2026-10-21"
    assert headers["content-type"] == "application/json"


async def test_an_api_key_wins_over_an_auth_token(fake_api, providers):
    fake_api.enqueue(reply(text("Hello!")))

    provider = provider_for(fake_api, providers, api_key="the-key", auth_token="the-token")
    await collect(provider, HELLO)

    assert fake_api.requests[0].headers["authorization"] == "Bearer the-key"


async def test_an_auth_token_alone_is_the_bearer_token(fake_api, providers):
    fake_api.enqueue(reply(text("Hello!")))

    await collect(provider_for(fake_api, providers, auth_token="the-token"), HELLO)

    assert fake_api.requests[0].headers["authorization"] == "Bearer the-token"


async def test_custom_headers_from_the_environment_are_sent(fake_api, providers, monkeypatch):
    monkeypatch.setenv(
        "ANTHROPIC_CUSTOM_HEADERS", "X-Team: tools\nX-Trace : abc 123\nnot a header\n: no name"
    )
    fake_api.enqueue(reply(text("Hello!")))

    await collect(provider_for(fake_api, providers, api_key="k"), HELLO)

    headers = fake_api.requests[0].headers
    assert (headers["x-team"], headers["x-trace"]) == ("tools", "abc 123")


async def test_the_body_carries_the_request_and_asks_for_a_stream(fake_api, providers):
    fake_api.enqueue(reply(text("Hello!")))
    tool = {"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}}
    request = ModelRequest(
        model=MODEL,
        messages=[{"role": "user", "content": "hi"}],
        system=[{"type": "text", "text": "Be brief."}],
        tools=[tool],
        max_tokens=100,
        extra={"metadata": {"user_id": "someone"}},
    )

    await collect(provider_for(fake_api, providers, api_key="k"), request)

    (sent,) = fake_api.requests
    assert (sent.method, sent.path) == ("POST", "/v1/messages")
    assert sent.body == {
        "model": MODEL,
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "system": [{"type": "text", "text": "Be brief."}],
        "tools": [tool],
        "metadata": {"user_id": "someone"},
    }


async def test_chunks_then_complete_blocks_then_the_end_with_its_usage(fake_api, providers):
    call = tool_use("Read", {"file_path": "/x/a.py", "limit": 2})
    fake_api.enqueue(
        reply(
            thinking("Let me think.", signature="c2ln"),
            text("Reading it."),
            call,
            chunk_size=4,
            usage={"input_tokens": 30, "cache_read_input_tokens": 20, "output_tokens": 12},
        )
    )

    events = await collect(provider_for(fake_api, providers, api_key="k"), HELLO)

    assert isinstance(events[0], StreamStarted) and events[0].model == MODEL
    thought = [e.text for e in events if isinstance(e, ThinkingChunk)]
    said = [e.text for e in events if isinstance(e, TextChunk)]
    assert thought == ["Let ", "me t", "hink", "."]
    assert said == ["Read", "ing ", "it."]
    blocks = [e.block for e in events if isinstance(e, BlockCompleted)]
    assert blocks == [
        {"type": "thinking", "thinking": "Let me think.", "signature": "c2ln"},
        {"type": "text", "text": "Reading it."},
        {"type": "tool_use", "id": call.id, "name": "Read", "input": call.input},
    ]
    end = events[-1]
    assert isinstance(end, MessageCompleted) and end.stop_reason == "tool_use"
    assert end.usage == Usage(
        input_tokens=30, output_tokens=12, cache_creation_input_tokens=0, cache_read_input_tokens=20
    )
