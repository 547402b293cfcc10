"""The Anthropic Messages API through the official SDK, streaming.

We read the raw SSE events (`messages.create(stream=True)`) rather than the
SDK's accumulating helper: the loop needs each content block the moment it is
complete (to start a safe tool while the model still streams), and we parse
tool input JSON once, at the block's end.

The SDK's own retries are off (`max_retries=0`): retrying happens here, so
each retry can be reported to the person as an event, and so a stream that
breaks *after* content arrived is never silently replayed.

Waiting is bounded at the HTTP level: a short connect timeout, and a read
timeout that is "no byte for N s", counted for the response's headers and
between any two chunks alike (httpx applies it to every socket read). When it
fires, the response is closed, which closes its connection.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

from agentcli.config.credentials import credential
from agentcli.core.abort import AbortSignal
from agentcli.core.usage import Usage
from agentcli.providers.base import (
    BlockCompleted,
    MessageCompleted,
    ModelError,
    ModelRequest,
    ProviderEvent,
    Retrying,
    StreamStarted,
    TextChunk,
    ThinkingChunk,
)
from agentcli.providers.failures import Failure, StreamCut, classify
from agentcli.providers.retry import GiveUp, RetryPolicy, RetryRun, Timeouts

NO_KEY_MESSAGE = (
    "No API key found. Set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in your environment, "
    "for example: export ANTHROPIC_API_KEY=sk-ant-..."
)


class AnthropicProvider:
    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        auth_token: str | None = None,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        timeouts: Timeouts | None = None,
    ) -> None:
        api_key = api_key or credential("ANTHROPIC_API_KEY")
        auth_token = auth_token or credential("ANTHROPIC_AUTH_TOKEN")
        if not (api_key or auth_token):
            raise ModelError(NO_KEY_MESSAGE, kind="authentication_error")
        import anthropic

        self._anthropic = anthropic
        self.retry = retry or RetryPolicy()
        self.timeouts = timeouts or Timeouts()
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            auth_token=auth_token,
            base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL") or None,
            max_retries=0,
            timeout=anthropic.Timeout(self.timeouts.idle_s, connect=self.timeouts.connect_s),
        )

    async def aclose(self) -> None:
        """Close the HTTP client while its event loop still runs (no stray warnings)."""
        await self._client.close()

    async def stream(
        self, request: ModelRequest, abort: AbortSignal
    ) -> AsyncIterator[ProviderEvent]:
        retries = RetryRun(self.retry)
        while True:
            state = _StreamState()
            try:
                async for event in self._stream_once(request, state):
                    yield event
                return
            except Exception as exc:
                failure = classify(exc, self._anthropic, self.timeouts)
                if state.content_started or not failure.retryable:
                    message = _final_message(failure, state.content_started)
                    raise ModelError(message, status=failure.status) from exc
                try:
                    delay = retries.next_delay(failure.retry_after)
                except GiveUp as spent:
                    raise ModelError(self._gave_up(failure, spent), status=failure.status) from exc
                yield Retrying(
                    retries.retries, self.retry.max_retries, delay, failure.cause, failure.status
                )
                if await abort.sleep(delay):
                    return

    async def _stream_once(
        self, request: ModelRequest, state: _StreamState
    ) -> AsyncIterator[ProviderEvent]:
        params: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": request.messages,
            "stream": True,
        }
        if request.system:
            params["system"] = request.system
        if request.tools:
            params["tools"] = request.tools
        params.update(request.extra)
        stream = await self._client.messages.create(**params)
        try:
            async for raw in stream:
                for event in state.handle(raw):
                    yield event
        finally:
            await stream.close()
        if not state.finished:
            raise StreamCut("the connection closed before the response was complete")

    def _gave_up(self, failure: Failure, spent: GiveUp) -> str:
        """The final word on a request retried in vain: what, how long, what to check."""
        message = f"{failure.cause}; {spent.reason}"
        if failure.status is not None:  # the API answered: the address and network are fine
            return message
        address = str(self._client.base_url).rstrip("/")
        slow = "; a server that is only slow needs a longer AGENTCLI_STREAM_IDLE_TIMEOUT_MS"
        return (
            f"{message}. Check that {address} is the right address (ANTHROPIC_BASE_URL)"
            f" and that the network is up{slow if failure.silence else ''}."
        )


def _final_message(failure: Failure, content_started: bool) -> str:
    if content_started and failure.retryable:
        return (
            f"{failure.cause}: the response was cut off midway"
            " (not retried, since part of it had already arrived)"
        )
    return failure.cause


class _StreamState:
    """Accumulates one response's raw events into blocks."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.json_parts: dict[int, list[str]] = {}
        self.usage = Usage()
        self.content_started = False
        self.finished = False
        self.stop_reason: str | None = None

    def handle(self, raw: Any) -> list[ProviderEvent]:
        kind = raw.type
        if kind == "content_block_delta":
            delta = raw.delta
            dtype = delta.type
            block = self.blocks[raw.index]
            if dtype == "text_delta":
                block["text"] += delta.text
                return [TextChunk(raw.index, delta.text)]
            if dtype == "input_json_delta":
                self.json_parts[raw.index].append(delta.partial_json)
            elif dtype == "thinking_delta":
                block["thinking"] += delta.thinking
                return [ThinkingChunk(raw.index, delta.thinking)]
            elif dtype == "signature_delta":
                block["signature"] = block.get("signature", "") + delta.signature
            elif dtype == "citations_delta":
                block.setdefault("citations", []).append(delta.citation.model_dump())
            return []
        if kind == "content_block_start":
            self.content_started = True
            block = raw.content_block.model_dump(exclude_none=True)
            if block.get("type") in ("tool_use", "server_tool_use"):
                self.json_parts[raw.index] = []
            self.blocks[raw.index] = block
            return []
        if kind == "content_block_stop":
            block = self.blocks[raw.index]
            if raw.index in self.json_parts:
                text = "".join(self.json_parts.pop(raw.index))
                block["input"] = _parse_tool_input(text)
            return [BlockCompleted(raw.index, block)]
        if kind == "message_start":
            self.usage = Usage.from_api(raw.message.usage)
            return [StreamStarted(raw.message.id, raw.message.model, self.usage)]
        if kind == "message_delta":
            self.stop_reason = raw.delta.stop_reason
            if raw.usage is not None:
                self._merge_usage(raw.usage)
            return []
        if kind == "message_stop":
            self.finished = True
            return [MessageCompleted(self.stop_reason, self.usage)]
        return []

    def _merge_usage(self, delta: Any) -> None:
        # message_delta carries cumulative counts; fields it omits keep their value.
        fields = self.usage.to_dict()
        for name in fields:
            value = getattr(delta, name, None)
            if value is not None:
                fields[name] = int(value)
        self.usage = Usage(**fields)


def _parse_tool_input(text: str) -> dict[str, Any]:
    """Parse the streamed input JSON. Invalid JSON becomes a marker the engine reports.

    Only JSON the API would take back in the next request counts: not Python's
    NaN and Infinity, nor nesting deeper than the parser's recursion limit.
    """
    if not text.strip():
        return {}
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return {"__invalid_json__": text}
    return value if isinstance(value, dict) else {"__invalid_json__": text}


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
