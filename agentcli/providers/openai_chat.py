"""The OpenAI Chat Completions API, streaming: the API every local server speaks.

Ollama, llama.cpp's server, vLLM, LM Studio, OpenRouter, DeepSeek and OpenAI
itself answer `POST {baseUrl}/chat/completions`. A streamed reply comes as
chunks: text in `delta.content`, reasoning in `delta.reasoning_content`
(DeepSeek, vLLM, llama.cpp) or `delta.reasoning` (OpenRouter, Ollama), and
tool calls in `delta.tool_calls`, each call's arguments in pieces keyed by
its index, several calls in one reply. Usage comes last (asked for with
`stream_options.include_usage`), cached tokens in
`prompt_tokens_details.cached_tokens` (DeepSeek: `prompt_cache_hit_tokens`).

The chunks become the same events the Anthropic provider gives, with block
indexes of their own: a block is complete when the next one starts or the
reply ends, so a safe tool can start while later calls still stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agentcli.core.messages import Block
from agentcli.core.usage import Usage
from agentcli.providers.base import (
    BlockCompleted,
    MessageCompleted,
    ModelRequest,
    ProviderEvent,
    StreamStarted,
    TextChunk,
    ThinkingChunk,
)
from agentcli.providers.openai_chat_request import chat_body
from agentcli.providers.openai_http import OpenAIProvider, is_done, stream_error
from agentcli.providers.openai_shared import as_int, tool_use_block, usage_from
from agentcli.providers.sse import SseEvent, event_json

STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}
# What an open block receives: the answer's text, reasoning, or a tool call's arguments.
_Kind = Literal["text", "thinking", "call"]


@dataclass
class _Call:
    """A tool call being received: its arguments arrive in pieces."""

    block: int
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ChatStreamReader:
    """One reply's chunks, as provider events."""

    def __init__(self) -> None:
        self.content_started = False
        self.finished = False
        self._started = False
        self._blocks = 0  # block indexes given out so far
        self._open: tuple[_Kind, int] | None = None  # the open block's kind and index
        self._texts: dict[int, list[str]] = {}
        self._calls: dict[int, _Call] = {}  # by the API's tool call index
        self._open_call: int | None = None
        self._stop_reason: str | None = None
        self._usage = Usage()

    def handle(self, event: SseEvent) -> list[ProviderEvent]:
        if is_done(event):
            return self._finish()
        chunk = event_json(event)
        if "error" in chunk:
            raise stream_error(chunk)
        out: list[ProviderEvent] = []
        if not self._started:
            self._started = True
            out.append(
                StreamStarted(str(chunk.get("id", "")), str(chunk.get("model", "")), Usage())
            )
        if isinstance(chunk.get("usage"), dict):
            self._usage = _usage(chunk["usage"])
        for choice in chunk.get("choices") or []:
            out += self._delta(choice.get("delta") or {})
            if choice.get("finish_reason"):
                out += self._close()
                reason = choice["finish_reason"]
                self._stop_reason = STOP_REASONS.get(reason, reason)
        return out

    def _delta(self, delta: dict[str, Any]) -> list[ProviderEvent]:
        out: list[ProviderEvent] = []
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            index, out = self._into("thinking")
            self._texts[index].append(reasoning)
            out.append(ThinkingChunk(index, reasoning))
        text = delta.get("content")
        if isinstance(text, str) and text:
            index, opened = self._into("text")
            self._texts[index].append(text)
            out += [*opened, TextChunk(index, text)]
        for piece in delta.get("tool_calls") or []:
            out += self._call_piece(piece)
        return out

    def _into(self, kind: _Kind) -> tuple[int, list[ProviderEvent]]:
        """The open block of `kind`, opening it (and closing another) if needed."""
        if self._open is not None and self._open[0] == kind:
            return self._open[1], []
        closed = self._close()
        index = self._new_block(kind)
        self._texts[index] = []
        return index, closed

    def _call_piece(self, piece: dict[str, Any]) -> list[ProviderEvent]:
        out: list[ProviderEvent] = []
        position = as_int(piece.get("index", len(self._calls)))
        call = self._calls.get(position)
        if call is None:
            out = self._close()
            call = self._calls[position] = _Call(self._new_block("call"))
            self._open_call = position
        function = piece.get("function") or {}
        call.id = call.id or piece.get("id") or None
        call.name += function.get("name") or ""
        call.arguments.append(function.get("arguments") or "")
        return out

    def _new_block(self, kind: _Kind) -> int:
        self.content_started = True
        index, self._blocks = self._blocks, self._blocks + 1
        self._open = (kind, index)
        return index

    def _close(self) -> list[ProviderEvent]:
        """Complete the open block, if any."""
        if self._open is None:
            return []
        kind, index = self._open
        self._open = None
        block: Block
        if kind == "call":
            assert self._open_call is not None
            call = self._calls[self._open_call]
            block = tool_use_block(call.id, call.name, "".join(call.arguments))
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": "".join(self._texts.pop(index))}
        else:
            block = {"type": "text", "text": "".join(self._texts.pop(index))}
        return [BlockCompleted(index, block)]

    def _finish(self) -> list[ProviderEvent]:
        out = self._close()
        self.finished = True
        if self._calls and self._stop_reason != "max_tokens":
            self._stop_reason = "tool_use"  # some servers say "stop" after tool calls
        self._stop_reason = self._stop_reason or "end_turn"
        return [*out, MessageCompleted(self._stop_reason, self._usage)]


def _usage(raw: dict[str, Any]) -> Usage:
    details = raw.get("prompt_tokens_details")
    cached = as_int(details.get("cached_tokens")) if isinstance(details, dict) else 0
    cached = cached or as_int(raw.get("prompt_cache_hit_tokens"))
    return usage_from(
        as_int(raw.get("prompt_tokens")), as_int(raw.get("completion_tokens")), cached
    )


class OpenAIChatProvider(OpenAIProvider):
    """A provider for `POST {base_url}/chat/completions`."""

    name = "openai-chat"
    path = "/chat/completions"
    reader = ChatStreamReader

    def body(self, request: ModelRequest, max_tokens: int | None) -> dict[str, Any]:
        return chat_body(request, max_tokens)

    def reasoning_fields(self, effort: str | None) -> dict[str, Any]:
        return {} if effort is None else {"reasoning_effort": effort}
