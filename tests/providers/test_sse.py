"""The SSE framing: events as the spec cuts them, whatever the server's line habits."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agentcli.providers.sse import SseEvent, sse_events


async def events_of(*lines: str) -> list[SseEvent]:
    async def feed() -> AsyncIterator[str]:
        for line in lines:
            yield line

    return [event async for event in sse_events(feed())]


async def test_named_events_end_at_a_blank_line():
    events = await events_of(
        "event: message_start", 'data: {"a":1}', "", "event: ping", 'data: {"type":"ping"}', ""
    )

    assert events == [
        SseEvent("message_start", '{"a":1}'),
        SseEvent("ping", '{"type":"ping"}'),
    ]


async def test_several_data_lines_join_with_newlines_and_one_leading_space_goes():
    events = await events_of("data:first", "data:  second", "data", "")

    assert events == [SseEvent(None, "first\n second\n")]


async def test_comments_unknown_fields_and_lone_blank_lines_are_ignored():
    events = await events_of(": keep-alive", "", "id: 7", "retry: 10", "event: x", "data: y", "")

    assert events == [SseEvent("x", "y")]


async def test_an_event_the_stream_ends_before_finishing_is_dropped():
    events = await events_of("event: a", "data: 1", "", "event: message_stop", "data: {}")

    assert events == [SseEvent("a", "1")]


async def test_a_name_without_data_is_no_event_and_does_not_leak_into_the_next():
    events = await events_of("event: lonely", "", "data: plain", "")

    assert events == [SseEvent(None, "plain")]
