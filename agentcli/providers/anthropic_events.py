"""One streamed response's events, accumulated into the blocks the loop needs.

The Messages API streams `message_start`, then per content block a
`content_block_start`, its deltas and a `content_block_stop`, then
`message_delta` (stop reason, cumulative usage) and `message_stop`. Text and
thinking are passed on as they arrive; each block is handed over complete at
its stop, tool input parsed once, there. Event types and block types this
module does not know are kept as they came (a new server tool's blocks go back
to the API unchanged) or ignored (a new event), as the SDK does.
"""

from __future__ import annotations

from typing import Any

from agentcli.core.messages import as_block
from agentcli.core.usage import Usage
from agentcli.providers.base import (
    BlockCompleted,
    MessageCompleted,
    ProviderEvent,
    StreamStarted,
    TextChunk,
    ThinkingChunk,
)
from agentcli.providers.tool_input import parse_tool_input

_JSON_INPUT_BLOCKS = ("tool_use", "server_tool_use")


class StreamState:
    """Accumulates one response's events into blocks (the API's JSON as it comes; each
    is handed over as a typed `Block` once complete)."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.json_parts: dict[int, list[str]] = {}
        self.usage = Usage()
        self.content_started = False
        self.finished = False
        self.stop_reason: str | None = None

    def handle(self, event: dict[str, Any]) -> list[ProviderEvent]:
        kind = event.get("type")
        if kind == "content_block_delta":
            return self._delta(event["index"], event["delta"])
        if kind == "content_block_start":
            self.content_started = True
            index = event["index"]
            block = _without_nulls(event["content_block"])
            if block.get("type") in _JSON_INPUT_BLOCKS:
                self.json_parts[index] = []
            self.blocks[index] = block
            return []
        if kind == "content_block_stop":
            return [self._stop(event["index"])]
        if kind == "message_start":
            message = event["message"]
            self.usage = Usage.from_api(message.get("usage") or {})
            return [StreamStarted(message["id"], message["model"], self.usage)]
        if kind == "message_delta":
            self.stop_reason = (event.get("delta") or {}).get("stop_reason")
            self._merge_usage(event.get("usage") or {})
            return []
        if kind == "message_stop":
            self.finished = True
            return [MessageCompleted(self.stop_reason, self.usage)]
        return []

    def _delta(self, index: int, delta: dict[str, Any]) -> list[ProviderEvent]:
        block = self.blocks[index]
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] += delta["text"]
            return [TextChunk(index, delta["text"])]
        if kind == "thinking_delta":
            block["thinking"] += delta["thinking"]
            return [ThinkingChunk(index, delta["thinking"])]
        if kind == "input_json_delta":
            self.json_parts[index].append(delta["partial_json"])
        elif kind == "signature_delta":
            block["signature"] = block.get("signature", "") + delta["signature"]
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(delta["citation"])
        return []

    def _stop(self, index: int) -> BlockCompleted:
        block = self.blocks[index]
        if index in self.json_parts:
            block["input"] = parse_tool_input("".join(self.json_parts.pop(index)))
        return BlockCompleted(index, as_block(block))

    def _merge_usage(self, delta: dict[str, Any]) -> None:
        # message_delta carries cumulative counts; fields it omits keep their value.
        fields = self.usage.to_dict()
        for name in fields:
            value = delta.get(name)
            if value is not None:
                fields[name] = int(value)
        self.usage = Usage(**fields)


def _without_nulls(value: Any) -> Any:
    """A block as the SDK's `model_dump(exclude_none=True)` gave it: no null fields."""
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value
