"""The OpenAI providers against the fake OpenAI-compatible server, on the wire.

Each test runs for both APIs (Chat Completions and Responses): streamed text,
reasoning, tool calls whose arguments arrive in pieces (several per reply),
usage with cached tokens, what is left out of the request (Anthropic-only
fields that strict servers refuse), and the shared retry policy.
"""

from __future__ import annotations

import json

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.providers import http_errors
from agentcli.providers.base import (
    BlockCompleted,
    MessageCompleted,
    ModelError,
    ModelRequest,
    Retrying,
    TextChunk,
    ThinkingChunk,
)
from agentcli.providers.openai_chat import OpenAIChatProvider
from agentcli.providers.openai_responses import OpenAIResponsesProvider
from agentcli.providers.retry import RetryPolicy
from tests.fakeapi import cut_stream, http_error, reply, stream_error, text, thinking, tool_use

KINDS = {"chat": OpenAIChatProvider, "responses": OpenAIResponsesProvider}
TOOLS = [
    {
        "name": "Read",
        "description": "Read a file",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}},
        "cache_control": {"type": "ephemeral"},
    },
    {"type": "web_search_20250305", "name": "web_search"},  # a server tool: Anthropic's only
]


@pytest.fixture(params=sorted(KINDS))
async def provider(request, fake_openai):
    made = KINDS[request.param](
        base_url=fake_openai.base_url,
        api_key="key",
        retry=RetryPolicy(max_retries=2, base_delay_s=0.0),
    )
    yield made
    await made.aclose()


def ask(text_: str = "hi", **fields) -> ModelRequest:
    return ModelRequest(
        model="qwen3-coder",
        messages=[{"role": "user", "content": [{"type": "text", "text": text_}]}],
        **fields,
    )


async def collect(provider, request: ModelRequest) -> list:
    return [event async for event in provider.stream(request, AbortSignal())]


async def test_text_streams_in_pieces_and_completes(provider, fake_openai):
    fake_openai.enqueue(reply(text("Hello there, how can I help?")))

    events = await collect(provider, ask())

    chunks = [e.text for e in events if isinstance(e, TextChunk)]
    assert len(chunks) > 1 and "".join(chunks) == "Hello there, how can I help?"
    blocks = [e.block for e in events if isinstance(e, BlockCompleted)]
    assert blocks == [{"type": "text", "text": "Hello there, how can I help?"}]
    (end,) = [e for e in events if isinstance(e, MessageCompleted)]
    assert end.stop_reason == "end_turn" and end.usage.output_tokens > 0


async def test_several_tool_calls_with_arguments_in_pieces(provider, fake_openai):
    calls = [tool_use("Read", {"file_path": f"/src/{name}.py"}) for name in ("alpha", "beta")]
    fake_openai.enqueue(reply(text("Reading both."), *calls, chunk_size=5))

    events = await collect(provider, ask(tools=TOOLS))

    blocks = [e.block for e in events if isinstance(e, BlockCompleted)]
    assert blocks[1:] == [
        {"type": "tool_use", "id": c.id, "name": "Read", "input": dict(c.input)} for c in calls
    ]
    assert events[-1] == MessageCompleted("tool_use", events[-1].usage)


async def test_reasoning_is_streamed_as_thinking(provider, fake_openai):
    fake_openai.enqueue(reply(thinking("Let me think about it."), text("42")))

    events = await collect(provider, ask())

    assert "".join(e.text for e in events if isinstance(e, ThinkingChunk)) == (
        "Let me think about it."
    )
    assert [e.block["type"] for e in events if isinstance(e, BlockCompleted)] == [
        "thinking",
        "text",
    ]


async def test_anthropic_only_parts_are_left_out_and_tool_pairs_translated(provider, fake_openai):
    fake_openai.enqueue(reply(text("Done.")))
    call = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "read /a"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "text", "text": "Reading."},
                call,
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a = 1"},
                {"type": "text", "text": "go on", "cache_control": {"type": "ephemeral"}},
            ],
        },
    ]
    system = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    request = ModelRequest(
        model="qwen3-coder",
        messages=messages,
        system=system,
        tools=TOOLS,
        extra={"thinking": {"type": "enabled", "budget_tokens": 1024}},
    )

    events = await collect(provider, request)

    assert isinstance(events[-1], MessageCompleted)
    sent = fake_openai.requests[0]
    assert sent.status == 200, sent.error
    assert (
        "cache_control" not in sent.raw_body.decode() and "thinking" not in sent.raw_body.decode()
    )
    assert "web_search" not in sent.raw_body.decode()


async def test_cached_tokens_are_reported_as_cache_reads(provider, fake_openai):
    fake_openai.enqueue(reply(text("one")), reply(text("two")))
    first = await collect(provider, ask("a long question " * 40))
    history = [
        *ask("a long question " * 40).messages,
        {"role": "assistant", "content": [{"type": "text", "text": "one"}]},
        {"role": "user", "content": [{"type": "text", "text": "and more"}]},
    ]

    second = await collect(provider, ModelRequest(model="qwen3-coder", messages=history))

    assert first[-1].usage.cache_read_input_tokens == 0
    usage = second[-1].usage
    assert usage.cache_read_input_tokens > 0 and usage.input_tokens > 0


async def test_a_stream_that_ends_with_done_completes(provider, fake_openai):
    """LiteLLM's proxy has ended Responses streams with Chat Completions' `data: [DONE]`
    after `response.completed`; Chat Completions streams always end so."""
    fake_openai.responses_done = True
    fake_openai.enqueue(reply(text("All done."), tool_use("Read", {"file_path": "/x"})))

    events = await collect(provider, ask(tools=TOOLS))

    blocks = [e.block for e in events if isinstance(e, BlockCompleted)]
    assert blocks[0] == {"type": "text", "text": "All done."}
    assert blocks[1]["input"] == {"file_path": "/x"}
    (end,) = [e for e in events if isinstance(e, MessageCompleted)]
    assert end.stop_reason == "tool_use"


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize(
    "data", ["<html><body>502 Bad Gateway</body></html>", "[1, 2]", '"text"', "[DONE"]
)
def test_an_event_that_is_not_a_json_object_is_named_not_a_traceback(kind, data):
    from agentcli.providers.failures import classify
    from agentcli.providers.retry import Timeouts
    from agentcli.providers.sse import SseEvent

    reader = KINDS[kind].reader()
    with pytest.raises(Exception) as raised:
        reader.handle(SseEvent(None, data))

    failure = classify(raised.value, http_errors, Timeouts())
    assert not failure.retryable
    assert failure.cause.startswith("the server's response stream could not be read")
    assert repr(data) in failure.cause


async def test_tool_schemas_go_without_references_servers_do_not_resolve(provider, fake_openai):
    """TodoWrite's schema (pydantic's `$defs`) and an MCP server's recursive one reach
    a server that refuses `$ref` (the fake, like several local runtimes) inlined."""
    from agentcli.tools.todo_write import TodoWriteTool

    tree = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
    }
    tools = [TodoWriteTool().schema(), {"name": "mcp__t__tree", "input_schema": tree}]
    fake_openai.enqueue(reply(text("ok")))

    await collect(provider, ask(tools=tools))

    body = fake_openai.requests[0].body
    assert fake_openai.requests[0].status == 200, fake_openai.requests[0].error
    assert "$ref" not in json.dumps(body["tools"]) and "$defs" not in json.dumps(body["tools"])


async def test_429_with_retry_after_is_retried_and_reported(provider, fake_openai):
    fake_openai.enqueue(http_error(429, retry_after="0"), reply(text("Recovered.")))

    events = await collect(provider, ask())

    (retry,) = [e for e in events if isinstance(e, Retrying)]
    assert retry.status == 429 and retry.delay_s == 0
    assert isinstance(events[-1], MessageCompleted)


async def test_a_cut_before_content_is_retried_one_after_is_not(provider, fake_openai):
    fake_openai.enqueue(cut_stream(reply(text("never")), after_events=1), reply(text("ok")))
    events = await collect(provider, ask())
    assert [type(e) for e in events if isinstance(e, Retrying)] == [Retrying]

    fake_openai.enqueue(cut_stream(reply(text("half of a longer answer")), after_events=3))
    with pytest.raises(ModelError, match="cut off midway"):
        await collect(provider, ask())


async def test_an_error_mid_stream_ends_with_its_message(provider, fake_openai):
    fake_openai.enqueue(
        stream_error(reply(text("partial answer here")), after_events=3, message="model crashed")
    )

    with pytest.raises(ModelError, match="model crashed"):
        await collect(provider, ask())


async def test_a_refused_request_is_not_retried_and_keeps_the_server_message(provider, fake_openai):
    fake_openai.enqueue(http_error(400, message="context length exceeded"))

    with pytest.raises(ModelError, match="API Error 400: context length exceeded"):
        await collect(provider, ask())
    assert len(fake_openai.requests) == 1


async def test_an_unreachable_server_names_the_provider_and_its_address():
    provider = OpenAIChatProvider(
        base_url="http://127.0.0.1:9/v1",
        provider_name="local",
        retry=RetryPolicy(max_retries=1, base_delay_s=0.0),
    )
    try:
        with pytest.raises(ModelError, match=r"connection refused.*'local'.*127.0.0.1:9"):
            await collect(provider, ask())
    finally:
        await provider.aclose()


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_without_a_provider_name_the_api_is_named(kind):
    provider = KINDS[kind](base_url="http://127.0.0.1:9/v1", retry=RetryPolicy(max_retries=0))
    try:
        with pytest.raises(ModelError, match=f"the server of provider 'openai-{kind}' runs at"):
            await collect(provider, ask())
    finally:
        await provider.aclose()


async def test_sse_framing_skips_comments_and_keeps_empty_events_for_the_provider_to_skip():
    """One SSE reader for every provider (providers/sse.py): comments vanish, an empty
    `data:` is an event (OpenAIHttp skips it as a keep-alive), data lines join."""
    from agentcli.providers.sse import SseEvent, sse_events

    async def lines():
        for line in [": keep-alive", "", "data:", "", "event: x", 'data: {"a":', "data: 1}", ""]:
            yield line

    assert [e async for e in sse_events(lines())] == [
        SseEvent(None, ""),
        SseEvent("x", '{"a":\n1}'),
    ]


async def test_an_image_of_the_prompt_goes_as_a_data_url_part(provider, fake_openai):
    """A prompt's `[Image #1]` (frontends/tui/prompt_images.py): the image block before
    its text becomes the vendor's image part, its bytes a data: URL."""
    fake_openai.enqueue(reply(text("A red dot.")))
    data = "iVBORw0KGgo="  # the request's shape is checked here, not the picture
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
    words = {"type": "text", "text": "[Image #1] what is this?"}
    request = ModelRequest(
        model="qwen3-coder", messages=[{"role": "user", "content": [image, words]}]
    )

    events = await collect(provider, request)

    assert isinstance(events[-1], MessageCompleted)
    sent = fake_openai.requests[0]
    assert sent.status == 200, sent.error
    body = json.loads(sent.raw_body)
    parts = body["messages"][-1]["content"] if "messages" in body else body["input"][-1]["content"]
    url = f"data:image/png;base64,{data}"
    assert {"type": "image_url", "image_url": {"url": url}} in parts or {
        "type": "input_image",
        "image_url": url,
    } in parts
