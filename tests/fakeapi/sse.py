"""Render a scripted reply as the real API's server-sent events (or one Message object).

The event sequence and payload shapes follow the Messages streaming protocol:
message_start, ping, then per block content_block_start / *_delta... /
content_block_stop, then message_delta (stop reason, output tokens) and message_stop.
Text, thinking and tool input JSON are split into several deltas so clients must
accumulate them, as they must against the real API. A server-side web search is
two blocks: `server_tool_use` (its input streamed as JSON deltas) and
`web_search_tool_result` (whole in its start event), and the message's usage
counts the searches (`server_tool_use.web_search_requests`).
"""

from __future__ import annotations

import base64
import json
import math
from typing import Any, TypeAlias

from .script import (
    Block,
    Reply,
    SearchResult,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    WebSearchBlock,
)

Event: TypeAlias = tuple[str, dict[str, Any]]
Usage: TypeAlias = dict[str, int]


def encode_event(event: Event) -> bytes:
    name, data = event
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {name}\ndata: {payload}\n\n".encode()


def error_event(error_type: str, message: str) -> Event:
    return ("error", {"type": "error", "error": {"type": error_type, "message": message}})


def split(value: str, chunk_size: int | None = None) -> list[str]:
    """Cut `value` into pieces: about three for short strings, 16 characters for long ones."""
    if not value:
        return []
    size = chunk_size or max(1, min(16, math.ceil(len(value) / 3)))
    return [value[i : i + size] for i in range(0, len(value), size)]


def output_tokens(reply: Reply) -> int:
    chars = 0
    for block in reply.blocks:
        if isinstance(block, TextBlock):
            chars += len(block.text)
        elif isinstance(block, ThinkingBlock):
            chars += len(block.thinking)
        elif isinstance(block, WebSearchBlock):
            chars += len(block.query) + 20
        else:
            chars += len(_input_json(block))
    return max(1, chars // 4)


def encrypted_content(result: SearchResult) -> str:
    """The fake's stand-in for the API's opaque `encrypted_content`: it encodes the
    result's url and title, so validation can tell a result replayed unchanged."""
    sealed = json.dumps({"url": result.url, "title": result.title}, separators=(",", ":"))
    return base64.b64encode(sealed.encode()).decode()


def search_blocks(block: WebSearchBlock) -> tuple[dict[str, Any], dict[str, Any]]:
    """The two wire blocks of a server-side search: the call and its result."""
    call = {
        "type": "server_tool_use",
        "id": block.id,
        "name": "web_search",
        "input": {"query": block.query},
    }
    content: Any
    if block.error_code is not None:
        content = {"type": "web_search_tool_result_error", "error_code": block.error_code}
    else:
        content = [
            {
                "type": "web_search_result",
                "title": r.title,
                "url": r.url,
                "encrypted_content": encrypted_content(r),
                "page_age": r.page_age,
            }
            for r in block.results
        ]
    result = {"type": "web_search_tool_result", "tool_use_id": block.id, "content": content}
    return call, result


def searches(reply: Reply) -> int:
    return sum(isinstance(b, WebSearchBlock) for b in reply.blocks)


def _input_json(block: ToolUseBlock) -> str:
    text = block.input_json()
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # half a surrogate pair: sent as its \\u escape, as the API does
        return json.dumps(dict(block.input))
    return text


def _blocks_json(block: Block) -> list[dict[str, Any]]:
    if isinstance(block, WebSearchBlock):
        return list(search_blocks(block))
    return [_block_json(block)]


def _block_json(block: TextBlock | ThinkingBlock | ToolUseBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ThinkingBlock):
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    return {"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)}


def _search_events(index: int, block: WebSearchBlock, chunk_size: int | None) -> list[Event]:
    """The call streams like a tool_use (its input as JSON deltas); the result arrives
    whole in its content_block_start, as the real API sends it."""
    call, result = search_blocks(block)
    pieces = ["", *split(json.dumps(call["input"]), chunk_size)]
    return [
        ("content_block_start", {"type": "content_block_start", "index": index,
                                 "content_block": {**call, "input": {}}}),
        *[("content_block_delta", {"type": "content_block_delta", "index": index,
                                   "delta": {"type": "input_json_delta", "partial_json": p}})
          for p in pieces],
        ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ("content_block_start", {"type": "content_block_start", "index": index + 1,
                                 "content_block": result}),
        ("content_block_stop", {"type": "content_block_stop", "index": index + 1}),
    ]  # fmt: skip


def _block_events(index: int, block: Block, chunk_size: int | None) -> list[Event]:
    def delta(body: dict[str, Any]) -> Event:
        return (
            "content_block_delta",
            {"type": "content_block_delta", "index": index, "delta": body},
        )

    if isinstance(block, WebSearchBlock):
        return _search_events(index, block, chunk_size)
    if isinstance(block, TextBlock):
        start: dict[str, Any] = {"type": "text", "text": ""}
        deltas = [delta({"type": "text_delta", "text": p}) for p in split(block.text, chunk_size)]
    elif isinstance(block, ThinkingBlock):
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            delta({"type": "thinking_delta", "thinking": p})
            for p in split(block.thinking, chunk_size)
        ]
        deltas.append(delta({"type": "signature_delta", "signature": block.signature}))
    else:
        start = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
        # The real API opens with an empty partial_json before the pieces.
        pieces = ["", *split(_input_json(block), chunk_size)]
        deltas = [delta({"type": "input_json_delta", "partial_json": p}) for p in pieces]
    return [
        (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        ),
        *deltas,
        ("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


def stream_events(reply: Reply, *, message_id: str, model: str, usage: Usage) -> list[Event]:
    """All events of a complete stream; `usage` holds the four token counts."""
    start_usage = {
        "input_tokens": usage["input_tokens"],
        "output_tokens": 1,
        "cache_creation_input_tokens": usage["cache_creation_input_tokens"],
        "cache_read_input_tokens": usage["cache_read_input_tokens"],
    }
    events: list[Event] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
        ),
        ("ping", {"type": "ping"}),
    ]
    index = 0
    for block in reply.blocks:
        events.extend(_block_events(index, block, reply.chunk_size))
        index += 2 if isinstance(block, WebSearchBlock) else 1
    delta_usage: dict[str, Any] = {"output_tokens": usage["output_tokens"]}
    if searches(reply):
        delta_usage["server_tool_use"] = {"web_search_requests": searches(reply)}
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason, "stop_sequence": reply.stop_sequence},
                "usage": delta_usage,
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def message_object(reply: Reply, *, message_id: str, model: str, usage: Usage) -> dict[str, Any]:
    """The non-streaming response body: the same message, whole."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [wire for b in reply.blocks for wire in _blocks_json(b)],
        "stop_reason": reply.stop_reason,
        "stop_sequence": reply.stop_sequence,
        "usage": {**usage, **_server_usage(reply)},
    }


def _server_usage(reply: Reply) -> dict[str, Any]:
    count = searches(reply)
    return {"server_tool_use": {"web_search_requests": count}} if count else {}
