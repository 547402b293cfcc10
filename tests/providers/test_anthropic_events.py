"""The stream's events, accumulated: the blocks the fake API does not send.

Server tools, citations, redacted thinking and event types newer than this
code arrive from the real API; each block must go back in the next request
as the API gave it (minus null fields, as the SDK's models dropped them).
"""

from __future__ import annotations

from typing import Any

from agentcli.core.usage import Usage
from agentcli.providers.anthropic_events import StreamState
from agentcli.providers.base import BlockCompleted, MessageCompleted, StreamStarted


def start(usage: dict[str, int]) -> dict[str, Any]:
    message = {"id": "msg_1", "model": "claude-x", "usage": usage}
    return {"type": "message_start", "message": message}


def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, body: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": body}


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def feed(*events: dict[str, Any]) -> list[Any]:
    state = StreamState()
    return [out for event in events for out in state.handle(event)]


def test_a_server_tool_call_gets_its_input_parsed_at_its_end():
    call = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}

    out = feed(
        block_start(0, call),
        delta(0, {"type": "input_json_delta", "partial_json": '{"query": "py'}),
        delta(0, {"type": "input_json_delta", "partial_json": 'thon"}'}),
        stop(0),
    )

    assert out == [BlockCompleted(0, {**call, "input": {"query": "python"}})]


def test_citations_are_kept_on_their_text_block():
    citation = {"type": "char_location", "cited_text": "x", "document_index": 0}

    out = feed(
        block_start(0, {"type": "text", "text": "", "citations": None}),
        delta(0, {"type": "citations_delta", "citation": citation}),
        delta(0, {"type": "text_delta", "text": "Cited."}),
        stop(0),
    )

    assert out[-1] == BlockCompleted(0, {"type": "text", "text": "Cited.", "citations": [citation]})


def test_unknown_blocks_come_back_whole_without_nulls_and_unknown_events_are_ignored():
    redacted = {"type": "redacted_thinking", "data": "opaque", "extra": None}
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [{"type": "web_search_result", "url": "u", "page_age": None}],
    }

    out = feed(
        block_start(0, redacted),
        stop(0),
        {"type": "something_new", "index": 0},
        block_start(1, result),
        stop(1),
    )

    assert out == [
        BlockCompleted(0, {"type": "redacted_thinking", "data": "opaque"}),
        BlockCompleted(
            1,
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [{"type": "web_search_result", "url": "u"}],
            },
        ),
    ]


def test_usage_starts_with_the_message_and_message_delta_updates_what_it_names():
    out = feed(
        start({"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 5}),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 42, "cache_creation_input_tokens": None},
        },
        {"type": "message_stop"},
    )

    first = Usage(input_tokens=10, output_tokens=1, cache_read_input_tokens=5)
    assert out == [
        StreamStarted("msg_1", "claude-x", first),
        MessageCompleted("end_turn", Usage(10, 42, 0, 5)),
    ]
