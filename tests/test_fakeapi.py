"""The fake Messages API server, proven against the real anthropic SDK.

If these pass, a test that uses the fake server exercises the same SDK code paths
(streaming accumulation, error classes, dropped connections) as production.
"""

# Test parameters named `fake_api` shadow the imported fixture (F811); drop this line
# together with the import once tests/conftest.py provides the fixture.

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest
from PIL import Image

from tests.fakeapi import (
    NO_RESPONSE_LEFT,
    FakeAnthropic,
    PromptCache,
    cut_stream,
    hang,
    http_error,
    reply,
    stream_error,
    text,
    thinking,
    tool_use,
    validate_request,
)
from tests.fakeapi.scenario import ScenarioError, load_scenario, parse_scenario

REPO = Path(__file__).resolve().parent.parent
MODEL = "claude-test-1"
HELLO = [{"role": "user", "content": "Hello"}]


@pytest.fixture
async def client(fake_api: FakeAnthropic) -> AsyncIterator[anthropic.AsyncAnthropic]:
    async with anthropic.AsyncAnthropic(
        base_url=fake_api.base_url, api_key="test-key", max_retries=0
    ) as sdk:
        yield sdk


def post(server: FakeAnthropic, body: Any, path: str = "/v1/messages") -> tuple[int, Any]:
    """A raw POST, for bodies the SDK would refuse to build."""
    request = urllib.request.Request(
        server.base_url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "anthropic-version": "2023-06-01"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def body(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "max_tokens": 100, "messages": messages, **extra}


# -- streaming -------------------------------------------------------------------


async def test_text_stream_accumulates(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(reply(text("Hello! How can I help you today?")))
    async with client.messages.stream(model=MODEL, max_tokens=100, messages=HELLO) as stream:
        deltas = [event.text async for event in stream if event.type == "text"]
        message = await stream.get_final_message()

    assert len(deltas) > 1, "the text must arrive in several deltas"
    assert message.content[0].type == "text"
    assert message.content[0].text == "Hello! How can I help you today?"
    assert message.model == MODEL
    assert message.id.startswith("msg_")
    assert message.stop_reason == "end_turn"
    assert message.usage.input_tokens > 0
    assert message.usage.output_tokens == len("Hello! How can I help you today?") // 4
    assert fake_api.requests[0].body["stream"] is True


async def test_raw_event_sequence(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(reply(text("Hi there")))
    stream = await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO, stream=True)
    kinds = [event.type async for event in stream]
    assert kinds[0] == "message_start"
    assert kinds[1] == "content_block_start"  # the SDK skips the ping
    assert kinds[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert kinds.count("content_block_delta") == 3


async def test_tool_use_input_arrives_intact(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    tool_input = {"file_path": "/x/a.py", "limit": 20, "flags": [True, None], "note": "é ✓"}
    fake_api.enqueue(
        reply(text("Let me look."), tool_use("Read", tool_input, id="toolu_1"), chunk_size=5)
    )
    stream = await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO, stream=True)
    pieces = [
        e.delta.partial_json
        async for e in stream
        if e.type == "content_block_delta" and e.delta.type == "input_json_delta"
    ]
    assert len(pieces) > 3
    assert json.loads("".join(pieces)) == tool_input

    fake_api.enqueue(reply(text("Let me look."), tool_use("Read", tool_input)))
    async with client.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as helper:
        message = await helper.get_final_message()
    block = message.content[1]
    assert block.type == "tool_use"
    assert block.name == "Read"
    assert block.input == tool_input
    assert block.id.startswith("toolu_")
    assert message.stop_reason == "tool_use"


async def test_thinking_block_with_signature(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(reply(thinking("Let me think this through.", signature="sig=="), "Done."))
    async with client.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
        message = await stream.get_final_message()
    assert message.content[0].type == "thinking"
    assert message.content[0].thinking == "Let me think this through."
    assert message.content[0].signature == "sig=="
    assert message.content[1].text == "Done."


async def test_non_streaming_request_gets_the_same_message(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(reply("Sure.", tool_use("Bash", {"command": "ls"}), usage={"input_tokens": 7}))
    message = await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
    assert [b.type for b in message.content] == ["text", "tool_use"]
    assert message.content[1].input == {"command": "ls"}
    assert message.stop_reason == "tool_use"
    assert message.usage.input_tokens == 7


async def test_dynamic_response_sees_the_request(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(lambda request: reply(f"you sent {len(request['messages'])} messages"))
    messages = [*HELLO, {"role": "assistant", "content": "Hi"}, {"role": "user", "content": "Go"}]
    async with client.messages.stream(model=MODEL, max_tokens=10, messages=messages) as stream:
        assert await stream.get_final_text() == "you sent 3 messages"


async def test_empty_queue_answers_500_then_default(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    with pytest.raises(anthropic.InternalServerError) as caught:
        await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
    assert caught.value.api_message == NO_RESPONSE_LEFT

    fake_api.default = "default answer"
    for _ in range(2):
        message = await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
        assert message.content[0].text == "default answer"


async def test_dynamic_response_that_raises_is_a_500_and_an_error(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(lambda request: request["no such key"])
    with pytest.raises(anthropic.InternalServerError, match="raised KeyError") as caught:
        await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
    assert caught.value.api_message != NO_RESPONSE_LEFT
    assert "KeyError" in fake_api.errors[0]
    fake_api.errors.clear()  # or the fixture fails this test at teardown


async def test_query_string_is_ignored_and_count_tokens_works(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(reply("ok"))
    assert post(fake_api, body(HELLO), path="/v1/messages?beta=true")[0] == 200
    counted = await client.messages.count_tokens(model=MODEL, messages=HELLO)
    assert counted.input_tokens > 0
    first, second = fake_api.requests
    assert (first.path, first.query) == ("/v1/messages", "beta=true")
    assert second.path == "/v1/messages/count_tokens"
    assert fake_api.pending == 0


# -- errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "error_class", "error_type"),
    [
        (400, anthropic.BadRequestError, "invalid_request_error"),
        (401, anthropic.AuthenticationError, "authentication_error"),
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (500, anthropic.InternalServerError, "api_error"),
        (529, anthropic.OverloadedError, "overloaded_error"),
    ],
)
async def test_http_errors_map_to_sdk_exceptions(
    fake_api: FakeAnthropic,
    client: anthropic.AsyncAnthropic,
    status: int,
    error_class: type[anthropic.APIStatusError],
    error_type: str,
) -> None:
    fake_api.enqueue(http_error(status, message=f"scripted {status}"))
    with pytest.raises(error_class) as caught:
        async with client.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
            await stream.get_final_message()
    err = caught.value
    assert err.status_code == status
    assert err.type == error_type
    assert err.api_message == f"scripted {status}"
    assert f"scripted {status}" in err.message
    assert err.request_id is not None and err.request_id.startswith("req_")
    assert fake_api.requests[0].status == status


async def test_rate_limit_and_overload_details(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(http_error(429, retry_after="7"), http_error(529))
    with pytest.raises(anthropic.RateLimitError) as limited:
        await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO, stream=True)
    assert limited.value.response.headers["retry-after"] == "7"

    with pytest.raises(anthropic.APIStatusError) as overloaded:
        await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO, stream=True)
    assert isinstance(overloaded.value, anthropic.InternalServerError)
    assert overloaded.value.status_code == 529
    assert overloaded.value.api_message == "Overloaded"


async def test_rate_limit_retry_after_defaults_to_zero(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(http_error(429))
    with pytest.raises(anthropic.RateLimitError) as caught:
        await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
    assert caught.value.response.headers["retry-after"] == "0"


async def test_sdk_retry_reaches_the_next_scripted_response(fake_api: FakeAnthropic) -> None:
    # retry-after-ms is read before retry-after, and keeps the SDK's wait tiny.
    fake_api.enqueue(http_error(529, headers={"retry-after-ms": "1"}), reply("second try"))
    async with anthropic.AsyncAnthropic(
        base_url=fake_api.base_url, api_key="test-key", max_retries=1
    ) as sdk:
        message = await sdk.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
    assert message.content[0].text == "second try"
    assert [r.status for r in fake_api.requests] == [529, 200]


# A stream the server cut, as the SDK's iteration reports it: the transport's own error
# (anthropic < 2.17), or a connection error caused by it (2.17 on, which wraps a failed
# body read).
CUT = (httpx2.RemoteProtocolError, anthropic.APIConnectionError)


def transport_error(raised: BaseException, kind: type[Exception]) -> Exception:
    """The transport's error of `kind` behind what the SDK raised (it, or its cause)."""
    found = raised if isinstance(raised, kind) else raised.__cause__
    assert isinstance(found, kind), f"{raised!r} is not (and was not caused by) a {kind}"
    return found


@pytest.mark.parametrize(
    ("after_events", "expected"),
    [
        (0, []),  # right after the headers
        (1, ["message_start"]),
        (4, ["message_start", "content_block_start", "content_block_delta"]),  # ping is skipped
    ],
)
async def test_cut_stream_raises_during_iteration(
    fake_api: FakeAnthropic,
    client: anthropic.AsyncAnthropic,
    after_events: int,
    expected: list[str],
) -> None:
    fake_api.enqueue(cut_stream(reply("partial answer that never ends"), after_events=after_events))
    seen: list[str] = []
    stream = await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO, stream=True)
    with pytest.raises(CUT) as caught:
        async for event in stream:
            seen.append(event.type)
    assert "incomplete chunked read" in str(
        transport_error(caught.value, httpx2.RemoteProtocolError)
    )
    assert seen == expected
    request = fake_api.requests[0]
    assert request.finished.wait(5)
    assert (request.status, request.outcome) == (200, "cut")


async def test_cut_stream_through_the_helper_and_with_reset(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(cut_stream(reply("partial answer")), cut_stream(after_events=3, reset=True))
    with pytest.raises(CUT) as caught:
        async with client.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
            await stream.get_final_message()
    transport_error(caught.value, httpx2.RemoteProtocolError)
    with pytest.raises((httpx2.TransportError, anthropic.APIConnectionError)) as caught:
        async with client.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
            await stream.get_final_message()
    transport_error(caught.value, httpx2.TransportError)


async def test_cut_non_streaming_response_is_a_connection_error(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(cut_stream(reply("partial")))
    with pytest.raises(anthropic.APIConnectionError) as caught:
        await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
    assert isinstance(caught.value.__cause__, httpx2.RemoteProtocolError)


async def test_error_event_mid_stream(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(stream_error(reply("I was saying"), after_events=4))
    seen: list[str] = []
    stream = await client.messages.create(model=MODEL, max_tokens=10, messages=HELLO, stream=True)
    with pytest.raises(anthropic.APIStatusError) as caught:
        async for event in stream:
            seen.append(event.type)
    err = caught.value
    # The SDK builds the error from the 200 response that carried the stream: the
    # generic class, status 200, but the body's error type and message.
    assert type(err) is anthropic.APIStatusError
    assert err.status_code == 200
    assert err.type == "overloaded_error"
    assert err.api_message == "Overloaded"
    assert seen == ["message_start", "content_block_start", "content_block_delta"]
    assert fake_api.requests[0].outcome == "stream_error"


async def test_hang_until_client_aborts(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    stuck = hang(reply("Thinking about it for a long while"), after_events=4)
    fake_api.enqueue(stuck)
    seen: list[str] = []

    async def consume() -> None:
        stream = await client.messages.create(
            model=MODEL, max_tokens=10, messages=HELLO, stream=True
        )
        async for event in stream:
            seen.append(event.type)

    task = asyncio.create_task(consume())
    assert await asyncio.to_thread(stuck.reached.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    request = fake_api.requests[0]
    assert await asyncio.to_thread(request.finished.wait, 5)
    assert request.outcome == "client_disconnected"


async def test_hang_released_finishes_the_stream(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    stuck = hang(reply("first part, then the rest"), after_events=4)
    fake_api.enqueue(stuck)

    async def consume() -> str:
        async with client.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
            return await stream.get_final_text()

    task = asyncio.create_task(consume())
    assert await asyncio.to_thread(stuck.reached.wait, 5)
    assert not task.done()
    stuck.release()
    assert await task == "first part, then the rest"


async def test_hang_before_headers_sends_nothing_until_released(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    stuck = hang(reply("the whole answer"), before_headers=True)
    fake_api.enqueue(stuck)

    async def consume() -> str:
        async with client.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
            return await stream.get_final_text()

    task = asyncio.create_task(consume())
    assert await asyncio.to_thread(stuck.reached.wait, 5)
    assert not task.done()  # not even the status line has arrived
    stuck.release()
    assert await task == "the whole answer"
    request = fake_api.requests[0]
    assert await asyncio.to_thread(request.finished.wait, 5)
    assert request.outcome == "complete"


async def test_hang_before_headers_ends_when_the_client_gives_up(fake_api: FakeAnthropic) -> None:
    fake_api.enqueue(hang(before_headers=True))
    async with anthropic.AsyncAnthropic(
        base_url=fake_api.base_url,
        api_key="k",
        max_retries=0,
        # Long enough for a loaded machine's server to read the request before the
        # client gives up (the server records it then, and hangs).
        timeout=anthropic.Timeout(0.5, connect=5.0),
    ) as sdk:
        # The SDK's read timeout counts the wait for the status line too.
        with pytest.raises(anthropic.APITimeoutError):
            await sdk.messages.create(model=MODEL, max_tokens=10, messages=HELLO, stream=True)
    (request,) = await asyncio.to_thread(fake_api.wait_for_requests, 1)
    assert await asyncio.to_thread(request.finished.wait, 5)
    assert request.outcome == "client_disconnected"


def test_hang_takes_either_a_point_in_the_stream_or_before_the_headers() -> None:
    with pytest.raises(ValueError):
        hang(after_events=2, before_headers=True)


async def test_stop_ends_a_hung_stream() -> None:
    stuck = hang(after_events=2)
    server = FakeAnthropic([stuck]).start()
    async with anthropic.AsyncAnthropic(
        base_url=server.base_url, api_key="k", max_retries=0
    ) as sdk:
        stream = await sdk.messages.create(model=MODEL, max_tokens=10, messages=HELLO, stream=True)
        assert await asyncio.to_thread(stuck.reached.wait, 5)
        await asyncio.to_thread(server.stop)
        with pytest.raises(CUT) as caught:
            async for _ in stream:
                pass
        transport_error(caught.value, httpx2.RemoteProtocolError)
    assert server.requests[0].outcome == "server_stopped"


# -- validation ------------------------------------------------------------------

TOOL_USE = {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {"file_path": "/a"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_a", "content": "1: value = 1"}


def ask(content: Any = "Hi") -> dict[str, Any]:
    return {"role": "user", "content": content}


def answer(content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def picture(fmt: str = "PNG", size: tuple[int, int] = (8, 6)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size).save(out, format=fmt)
    return out.getvalue()


def image_block(data: bytes, media_type: str = "image/png") -> dict[str, Any]:
    encoded = base64.b64encode(data).decode()
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": encoded},
    }


def image_source(data: str, media_type: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


LOOK = {"type": "text", "text": "what is this?"}
IMAGE_RESULT = {**RESULT, "content": [image_block(picture("JPEG"), "image/png")]}

INVALID = {
    "image named by a media type that is not its bytes'": (
        body([ask([image_block(picture("JPEG"), "image/png"), LOOK])]),
        "messages.0.content.0.image.source.base64.data: Image does not match the provided "
        "media type image/png",
    ),
    "image of a media type the API does not take": (
        body([ask([image_block(picture("BMP"), "image/bmp"), LOOK])]),
        "media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
    ),
    "image over 5 MB of base64": (
        body([ask([image_source("A" * (5 * 1024 * 1024 + 4)), LOOK])]),
        "image exceeds 5 MB maximum: 5242884 bytes > 5242880 bytes",
    ),
    "image data not base64": (body([ask([image_source("not base64!"), LOOK])]), "Invalid base64"),
    "image data not an image": (
        body([ask([image_block(b"hello, world"), LOOK])]),
        "Could not process image",
    ),
    "image edge over 8000 px": (
        body([ask([image_block(picture(size=(8001, 2))), LOOK])]),
        "At least one of the image dimensions exceed max allowed size: 8000 pixels",
    ),
    "image edge over 2000 px among more than 20": (
        body([ask([image_block(picture(size=(2001, 2)))] * 21 + [LOOK])]),
        "exceed max allowed size for many-image requests: 2000 pixels",
    ),
    "image in a tool result checked too": (
        body([ask(), answer([TOOL_USE]), ask([IMAGE_RESULT])]),
        "messages.2.content.0.tool_result.content.0.image.source.base64.data: Image does not match",
    ),
    "no messages": ({"model": MODEL, "max_tokens": 5}, "messages: Field required"),
    "empty messages": (body([]), "messages: at least one message is required"),
    "first is assistant": (body([answer("Hi"), ask()]), 'first message must use the "user" role'),
    "no max_tokens": ({"model": MODEL, "messages": [ask()]}, "max_tokens: Field required"),
    "no model": ({"max_tokens": 5, "messages": [ask()]}, "model: Field required"),
    "tool_use without result": (
        body([ask(), answer([TOOL_USE]), ask("thanks")]),
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_a. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message.",
    ),
    "tool_use last": (body([ask(), answer([TOOL_USE])]), "without `tool_result` blocks"),
    "result after text": (
        body([ask(), answer([TOOL_USE]), ask([{"type": "text", "text": "x"}, RESULT])]),
        "without `tool_result` blocks",
    ),
    "unknown tool_use_id": (
        body([ask(), answer([TOOL_USE]), ask([RESULT, {**RESULT, "tool_use_id": "toolu_zz"}])]),
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_zz. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
        "message.",
    ),
    "result without any tool_use": (body([ask([RESULT])]), "messages.0.content.0: unexpected"),
    "empty text block": (
        body([ask([{"type": "text", "text": ""}])]),
        "messages: text content blocks must be non-empty",
    ),
    "whitespace text block": (body([ask([{"type": "text", "text": "  "}])]), "non-whitespace"),
    "empty string content": (
        body([ask(""), answer("Hi")]),
        "messages.0: all messages must have non-empty content except for the optional final "
        "assistant message",
    ),
    "empty list content": (body([ask(), answer([]), ask()]), "messages.1: all messages must"),
    "duplicate tool_use ids": (
        body([ask(), answer([TOOL_USE, TOOL_USE]), ask([RESULT])]),
        "messages.1.content.1: `tool_use` ids must be unique",
    ),
    "duplicate across turns": (
        body([ask(), answer([TOOL_USE]), ask([RESULT]), answer([TOOL_USE]), ask([RESULT])]),
        "messages.3.content.0: `tool_use` ids must be unique",
    ),
    "five breakpoints": (
        body(
            [ask([{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}] * 4)],
            system=[{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
        ),
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    ),
}

VALID = {
    "simple": body([ask()]),
    "images of each kind then text": body(
        [
            ask(
                [
                    image_block(picture("PNG")),
                    image_block(picture("JPEG"), "image/jpeg"),
                    image_block(picture("GIF"), "image/gif"),
                    image_block(picture("WEBP"), "image/webp"),
                    LOOK,
                ]
            )
        ]
    ),
    "an image of 8000 px alone": body([ask([image_block(picture(size=(8000, 2))), LOOK])]),
    "21 images of 2000 px": body([ask([image_block(picture(size=(2000, 2)))] * 21 + [LOOK])]),
    "tool exchange": body([ask(), answer([TOOL_USE]), ask([RESULT])]),
    "result then text": body(
        [ask(), answer([TOOL_USE]), ask([RESULT, {"type": "text", "text": "go on"}])]
    ),
    "consecutive users": body([ask("a"), ask("b")]),
    "merged assistant turns": body(
        [ask(), answer("Let me check."), answer([TOOL_USE]), ask([RESULT]), ask("and then?")]
    ),
    "empty final assistant": body([ask(), answer("")]),
    "four breakpoints": body(
        [ask([{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}] * 4)]
    ),
}


@pytest.mark.parametrize(("request_body", "expected"), INVALID.values(), ids=INVALID.keys())
def test_validation_rejects(
    fake_api: FakeAnthropic, request_body: dict[str, Any], expected: str
) -> None:
    assert expected in (validate_request(request_body) or "")
    fake_api.enqueue(reply("never sent"))
    status, payload = post(fake_api, request_body)
    assert status == 400
    assert payload["type"] == "error"
    assert payload["error"]["type"] == "invalid_request_error"
    assert expected in payload["error"]["message"]
    assert payload["request_id"].startswith("req_")
    # Rejected before the script was consumed, and still recorded.
    assert fake_api.pending == 1
    assert fake_api.requests[0].status == 400
    assert fake_api.requests[0].error == payload["error"]["message"]


@pytest.mark.parametrize("request_body", VALID.values(), ids=VALID.keys())
def test_validation_accepts(fake_api: FakeAnthropic, request_body: dict[str, Any]) -> None:
    assert validate_request(request_body) is None
    fake_api.enqueue(reply("fine"))
    status, payload = post(fake_api, request_body)
    assert status == 200, payload
    assert payload["content"] == [{"type": "text", "text": "fine"}]


async def test_sdk_sees_validation_error_as_bad_request(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue(reply("unused"))
    messages = [ask(), answer([TOOL_USE]), ask("forgot the result")]
    with pytest.raises(anthropic.BadRequestError, match="toolu_a") as caught:
        await client.messages.create(model=MODEL, max_tokens=10, messages=messages, stream=True)
    assert caught.value.type == "invalid_request_error"
    assert fake_api.pending == 1


def test_api_key_and_version_headers_are_checked() -> None:
    with FakeAnthropic(["ok"], api_key="right") as server:
        with sync_client(server.base_url) as wrong, pytest.raises(anthropic.AuthenticationError):
            wrong.messages.create(model=MODEL, max_tokens=5, messages=HELLO)
        with anthropic.Anthropic(base_url=server.base_url, api_key="right") as right:
            assert right.messages.create(model=MODEL, max_tokens=5, messages=HELLO).content
        raw = urllib.request.Request(
            server.base_url + "/v1/messages",
            data=json.dumps(body(HELLO)).encode(),
            headers={"x-api-key": "right"},  # but no anthropic-version
        )
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(raw, timeout=5)
        assert caught.value.code == 400
        assert "anthropic-version" in json.loads(caught.value.read())["error"]["message"]


def test_wait_for_requests(fake_api: FakeAnthropic) -> None:
    fake_api.enqueue("one")
    post(fake_api, body(HELLO))
    assert [r.status for r in fake_api.wait_for_requests(1)] == [200]
    with pytest.raises(TimeoutError, match="waited for 2 requests"):
        fake_api.wait_for_requests(2, timeout=0.01)


# -- prompt caching --------------------------------------------------------------

CACHED_SYSTEM = [
    {
        "type": "text",
        "text": "You are a coding agent. " * 40,
        "cache_control": {"type": "ephemeral"},
    }
]


async def test_second_identical_prefix_reads_the_cache(
    fake_api: FakeAnthropic, client: anthropic.AsyncAnthropic
) -> None:
    fake_api.enqueue("one", "two")
    usages = []
    for _ in range(2):
        async with client.messages.stream(
            model=MODEL, max_tokens=10, system=CACHED_SYSTEM, messages=HELLO
        ) as stream:
            usages.append((await stream.get_final_message()).usage)
    first, second = usages
    assert first.cache_read_input_tokens == 0
    assert first.cache_creation_input_tokens > 0
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens == 0
    assert second.input_tokens == first.input_tokens  # the uncached tail: the user message


def test_cache_reads_the_previous_turn_in_a_growing_conversation() -> None:
    cache = PromptCache()
    marker = {"type": "ephemeral"}
    turn1 = [
        ask([{"type": "text", "text": "Fix the bug in main.py " * 20, "cache_control": marker}])
    ]
    first = cache.account(body(turn1, system=CACHED_SYSTEM))
    turn2 = [
        ask([{"type": "text", "text": "Fix the bug in main.py " * 20}]),
        answer([{"type": "text", "text": "Done, the loop was off by one. " * 10}]),
        ask([{"type": "text", "text": "Now add a test.", "cache_control": marker}]),
    ]
    second = cache.account(body(turn2, system=CACHED_SYSTEM))
    assert first.cache_read_input_tokens == 0
    total_first = first.cache_creation_input_tokens + first.input_tokens
    assert second.cache_read_input_tokens == total_first
    assert second.cache_creation_input_tokens > 0
    other_model = cache.account({**body(turn1, system=CACHED_SYSTEM), "model": "other"})
    assert other_model.cache_read_input_tokens == 0


def test_no_breakpoints_means_no_cache() -> None:
    cache = PromptCache()
    for _ in range(2):
        usage = cache.account(body(HELLO, system="plain"))
        assert usage.cache_read_input_tokens == usage.cache_creation_input_tokens == 0
        assert usage.input_tokens > 0


# -- command-line mode -----------------------------------------------------------


@contextlib.contextmanager
def cli_server(scenario: str, **env: str) -> Iterator[str]:
    """Run `python -m tests.fakeapi` and yield its URL; it must exit 0 on stdin EOF."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakeapi", "--scenario", scenario],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        line = proc.stdout.readline()
        assert line.startswith("FAKEAPI_URL=http://127.0.0.1:"), line
        yield line.strip().split("=", 1)[1]
        proc.stdin.close()  # the server exits when its stdin closes
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()


def sync_client(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key="test-key", max_retries=0)


@pytest.mark.timeout(30)
def test_cli_serves_a_scenario_file(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.json"
    scenario.write_text(
        json.dumps(
            [
                {"text": "Hello from the file"},
                {"blocks": [{"type": "tool_use", "name": "Read", "input": {"file_path": "/a"}}]},
                {"error": 429, "retry_after": "0"},
            ]
        )
    )
    with cli_server(str(scenario)) as url, sync_client(url) as sdk:
        with sdk.messages.stream(model=MODEL, max_tokens=10, messages=HELLO) as stream:
            assert stream.get_final_text() == "Hello from the file"
        message = sdk.messages.create(model=MODEL, max_tokens=10, messages=HELLO)
        assert message.content[0].input == {"file_path": "/a"}
        with pytest.raises(anthropic.RateLimitError):
            sdk.messages.create(model=MODEL, max_tokens=10, messages=HELLO)


@pytest.mark.timeout(30)
def test_cli_seed_scenario_plays_the_demo(tmp_path: Path) -> None:
    messages: list[dict[str, Any]] = [ask("Change value to 2")]
    calls = []
    with cli_server("seed", FAKEAPI_PROJECT_DIR=str(tmp_path)) as url, sync_client(url) as sdk:
        for _ in range(3):
            message = sdk.messages.create(model=MODEL, max_tokens=100, messages=messages)
            uses = [b for b in message.content if b.type == "tool_use"]
            calls.extend((u.name, u.input) for u in uses)
            messages.append(answer([b.model_dump(exclude_none=True) for b in message.content]))
            if uses:
                results = [
                    {"type": "tool_result", "tool_use_id": u.id, "content": "ok"} for u in uses
                ]
                messages.append(ask(results))
    config = str(tmp_path / "config.py")
    assert calls == [
        ("Read", {"file_path": config}),
        ("Edit", {"file_path": config, "old_string": "value = 1", "new_string": "value = 2"}),
    ]
    assert message.content[-1].text == "Changed value to 2 in config.py."
    assert message.stop_reason == "end_turn"


def test_scenario_format_and_echo() -> None:
    scenario = parse_scenario(
        {
            "responses": [
                "plain",
                {"cut_after_events": 4, "text": "partial"},
                {"hang_after_events": 3, "blocks": [{"type": "text", "text": "wait"}]},
                {"hang_before_headers": True, "text": "late"},
                {"stream_error_after_events": 2, "text": "x"},
                {"error": 529},
            ],
            "default": {"text": "fallback"},
        }
    )
    kinds = [type(r).__name__ for r in scenario.responses]
    assert kinds == ["Reply", "CutStream", "Hang", "Hang", "StreamError", "HttpError"]
    assert scenario.responses[3].before_headers and not scenario.responses[2].before_headers
    with pytest.raises(ScenarioError):
        parse_scenario([{"text": "a", "blocks": []}])

    with (
        FakeAnthropic(default=load_scenario("echo").default) as server,
        sync_client(server.base_url) as sdk,
    ):
        message = sdk.messages.create(model=MODEL, max_tokens=5, messages=[ask("ping me")])
    assert message.content[0].text == "Echo: ping me"


def test_a_scenario_response_with_an_unknown_key_is_refused():
    """A misspelt key ("content" for "blocks") would otherwise serve an empty answer."""
    import pytest

    from tests.fakeapi.scenario import ScenarioError, parse_response

    with pytest.raises(ScenarioError, match=r"unknown response keys \['content'\]"):
        parse_response({"content": [{"type": "text", "text": "hi"}]})
    assert parse_response({"blocks": [{"type": "text", "text": "hi"}]}) is not None
