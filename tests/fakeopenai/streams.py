"""Render a scripted reply as Chat Completions chunks or Responses API events.

The same `Reply` values the fake Messages API streams (tests/fakeapi/script.py)
come out here in OpenAI's shapes, split into several deltas so a client must
accumulate text, reasoning and each tool call's arguments, as it must against
a real server. Each event is (SSE event name or None, JSON data or "[DONE]").
"""

from __future__ import annotations

import json
from typing import Any, TypeAlias

from tests.fakeapi.script import Reply, TextBlock, ThinkingBlock, ToolUseBlock
from tests.fakeapi.sse import split

Event: TypeAlias = tuple[str | None, str]
FINISH = {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length"}


def encode(event: Event) -> bytes:
    name, data = event
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {data}\n\n".encode()


def _data(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def chat_events(
    reply: Reply, *, response_id: str, model: str, usage: dict[str, Any]
) -> list[Event]:
    base = {"id": response_id, "object": "chat.completion.chunk", "created": 0, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> Event:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return (None, _data({**base, "choices": [choice]}))

    events = [chunk({"role": "assistant", "content": ""})]
    calls = 0
    for block in reply.blocks:
        if isinstance(block, ThinkingBlock):
            events += [
                chunk({"reasoning_content": p}) for p in split(block.thinking, reply.chunk_size)
            ]
        elif isinstance(block, TextBlock):
            events += [chunk({"content": p}) for p in split(block.text, reply.chunk_size)]
        elif isinstance(block, ToolUseBlock):
            head = {"index": calls, "id": block.id, "type": "function"}
            events.append(
                chunk({"tool_calls": [{**head, "function": {"name": block.name, "arguments": ""}}]})
            )
            arguments = block.input_json()
            events += [
                chunk({"tool_calls": [{"index": calls, "function": {"arguments": p}}]})
                for p in split(arguments, reply.chunk_size)
            ]
            calls += 1
    events.append(chunk({}, FINISH.get(reply.stop_reason, reply.stop_reason)))
    events.append((None, _data({**base, "choices": [], "usage": usage})))
    events.append((None, "[DONE]"))
    return events


def chat_error_event(error_type: str, message: str) -> Event:
    return (None, _data({"error": {"message": message, "type": error_type, "code": None}}))


def responses_events(
    reply: Reply, *, response_id: str, model: str, usage: dict[str, Any]
) -> list[Event]:
    response = {"id": response_id, "object": "response", "model": model, "output": []}
    events: list[Event] = []

    def event(kind: str, **fields: Any) -> None:
        events.append((kind, _data({"type": kind, "sequence_number": len(events), **fields})))

    event("response.created", response={**response, "status": "in_progress"})
    for index, block in enumerate(reply.blocks):
        item_id = f"item_{index}"
        if isinstance(block, TextBlock):
            item = {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress"}
            event("response.output_item.added", output_index=index, item={**item, "content": []})
            for piece in split(block.text, reply.chunk_size):
                event(
                    "response.output_text.delta",
                    item_id=item_id,
                    output_index=index,
                    content_index=0,
                    delta=piece,
                )
            part = {"type": "output_text", "text": block.text, "annotations": []}
            event(
                "response.output_text.done",
                item_id=item_id,
                output_index=index,
                content_index=0,
                text=block.text,
            )
            event(
                "response.output_item.done",
                output_index=index,
                item={**item, "status": "completed", "content": [part]},
            )
        elif isinstance(block, ThinkingBlock):
            item = {"type": "reasoning", "id": item_id, "summary": []}
            event("response.output_item.added", output_index=index, item=item)
            for piece in split(block.thinking, reply.chunk_size):
                event(
                    "response.reasoning_summary_text.delta",
                    item_id=item_id,
                    output_index=index,
                    summary_index=0,
                    delta=piece,
                )
            summary = [{"type": "summary_text", "text": block.thinking}]
            event(
                "response.output_item.done", output_index=index, item={**item, "summary": summary}
            )
        elif isinstance(block, ToolUseBlock):
            arguments = block.input_json()
            item = {"type": "function_call", "id": item_id, "call_id": block.id, "name": block.name}
            event(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            for piece in split(arguments, reply.chunk_size):
                event(
                    "response.function_call_arguments.delta",
                    item_id=item_id,
                    output_index=index,
                    delta=piece,
                )
            event(
                "response.function_call_arguments.done",
                item_id=item_id,
                output_index=index,
                arguments=arguments,
            )
            event(
                "response.output_item.done",
                output_index=index,
                item={**item, "arguments": arguments, "status": "completed"},
            )
    if reply.stop_reason == "max_tokens":
        event(
            "response.incomplete",
            response={
                **response,
                "status": "incomplete",
                "usage": usage,
                "incomplete_details": {"reason": "max_output_tokens"},
            },
        )
    else:
        event("response.completed", response={**response, "status": "completed", "usage": usage})
    return events


def responses_error_event(error_type: str, message: str) -> Event:
    return (
        "error",
        _data({"type": "error", "code": error_type, "message": message, "param": None}),
    )
