"""OpenAI's Responses API, streaming (`POST {baseUrl}/responses`).

OpenAI's own newer models are best served by this API. A streamed response
is a sequence of typed events: each output item (a message, a function call,
a reasoning summary) is announced (`response.output_item.added`), filled in
by deltas (`response.output_text.delta`,
`response.function_call_arguments.delta`,
`response.reasoning_summary_text.delta`) and closed
(`response.output_item.done`); `response.completed` carries the usage. Each
item becomes one of our blocks, indexed by its `output_index`.
"""

from __future__ import annotations

from typing import Any

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
from agentcli.providers.openai_http import OpenAIProvider, is_done, stream_error
from agentcli.providers.openai_responses_request import responses_body
from agentcli.providers.openai_shared import as_int, tool_use_block, usage_from
from agentcli.providers.sse import SseEvent, event_json


class ResponsesStreamReader:
    """One response's events, as provider events."""

    def __init__(self) -> None:
        self.content_started = False
        self.finished = False
        self._parts: dict[int, list[str]] = {}  # text, summary or arguments, by output_index
        self._calls = False

    def handle(self, event: SseEvent) -> list[ProviderEvent]:
        if is_done(event):  # a proxy's Chat Completions habit: the end is response.completed
            return []
        data = event_json(event)
        kind = data.get("type") or event.event
        index = as_int(data.get("output_index"))
        if kind in ("response.output_text.delta", "response.reasoning_summary_text.delta"):
            delta = str(data.get("delta", ""))
            self._parts.setdefault(index, []).append(delta)
            chunk = TextChunk if kind == "response.output_text.delta" else ThinkingChunk
            return [chunk(index, delta)]
        if kind == "response.function_call_arguments.delta":
            self._parts.setdefault(index, []).append(str(data.get("delta", "")))
        elif kind == "response.output_item.added":
            self.content_started = True
            self._parts[index] = []
        elif kind == "response.output_item.done":
            block = self._block(data.get("item") or {}, "".join(self._parts.pop(index, [])))
            return [BlockCompleted(index, block)] if block is not None else []
        elif kind == "response.created":
            response = data.get("response") or {}
            return [
                StreamStarted(str(response.get("id", "")), str(response.get("model", "")), Usage())
            ]
        elif kind in ("response.completed", "response.incomplete"):
            return [self._completed(data.get("response") or {})]
        elif kind == "response.failed":
            failed = (data.get("response") or {}).get("error") or {}
            raise stream_error({"error": {"type": failed.get("code"), **failed}})
        elif kind == "error":
            raise stream_error({"error": {"type": data.get("code"), **data}})
        return []

    def _block(self, item: dict[str, Any], streamed: str) -> Block | None:
        kind = item.get("type")
        if kind == "function_call":
            self._calls = True
            arguments = item.get("arguments") or streamed
            return tool_use_block(item.get("call_id"), str(item.get("name", "")), arguments)
        if kind == "message":
            return {"type": "text", "text": streamed or _message_text(item)}
        if kind == "reasoning":  # kept for the record; it has no Anthropic signature
            return {"type": "thinking", "thinking": streamed}
        return None

    def _completed(self, response: dict[str, Any]) -> MessageCompleted:
        self.finished = True
        raw = response.get("usage") or {}
        details = raw.get("input_tokens_details") or {}
        usage = usage_from(
            as_int(raw.get("input_tokens")),
            as_int(raw.get("output_tokens")),
            as_int(details.get("cached_tokens")),
        )
        incomplete = (response.get("incomplete_details") or {}).get("reason")
        if incomplete == "max_output_tokens":
            stop = "max_tokens"
        else:
            stop = "tool_use" if self._calls else "end_turn"
        return MessageCompleted(stop, usage)


def _message_text(item: dict[str, Any]) -> str:
    return "".join(
        part.get("text", "")
        for part in item.get("content") or []
        if part.get("type") == "output_text"
    )


class OpenAIResponsesProvider(OpenAIProvider):
    """A provider for `POST {base_url}/responses`."""

    name = "openai-responses"
    path = "/responses"
    reader = ResponsesStreamReader

    def body(self, request: ModelRequest, max_tokens: int | None) -> dict[str, Any]:
        return responses_body(request, max_tokens)

    def reasoning_fields(self, effort: str | None) -> dict[str, Any]:
        return {} if effort is None else {"reasoning": {"effort": effort}}
