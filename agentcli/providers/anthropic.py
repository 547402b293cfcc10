"""The Anthropic Messages API through the official SDK, streaming.

We read the raw SSE events (`messages.create(stream=True)`) rather than the
SDK's accumulating helper: the loop needs each content block the moment it is
complete (to start a safe tool while the model still streams), and we parse
tool input JSON once, at the block's end.

The SDK's own retries are off (`max_retries=0`): retrying happens here, so
each retry can be reported to the person as an event, and so a stream that
breaks *after* content arrived is never silently replayed.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from typing import Any

from agentcli.engine.abort import AbortSignal
from agentcli.engine.usage import Usage
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
from agentcli.providers.retry import RetryPolicy, is_retryable_status

# SSE `error` events arrive inside a 200 response; their type says what happened.
_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}

NO_KEY_MESSAGE = (
    "No API key found. Set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in your environment, "
    "for example: export ANTHROPIC_API_KEY=sk-ant-..."
)


class _StreamCut(Exception):
    """The connection ended before `message_stop`."""


class AnthropicProvider:
    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        auth_token: str | None = None,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        timeout_s: float = 600.0,
    ) -> None:
        api_key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        auth_token = auth_token or os.environ.get("ANTHROPIC_AUTH_TOKEN")
        if not (api_key or auth_token):
            raise ModelError(NO_KEY_MESSAGE, kind="authentication_error")
        import anthropic

        self._anthropic = anthropic
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            auth_token=auth_token,
            base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL") or None,
            max_retries=0,
            timeout=timeout_s,
        )
        self.retry = retry or RetryPolicy()

    async def aclose(self) -> None:
        """Close the HTTP client while its event loop still runs (no stray warnings)."""
        await self._client.close()

    async def stream(
        self, request: ModelRequest, abort: AbortSignal
    ) -> AsyncIterator[ProviderEvent]:
        attempt = 0
        while True:
            state = _StreamState()
            try:
                async for event in self._stream_once(request, state):
                    yield event
                return
            except Exception as exc:
                status, message, retryable = self._classify(exc)
                if state.content_started or not retryable or attempt >= self.retry.max_retries:
                    if state.content_started and retryable:
                        message = f"{message} (the response was cut off midway)"
                    raise ModelError(message, status=status) from exc
                attempt += 1
                delay = self.retry.delay(attempt, _retry_after(exc))
                yield Retrying(attempt, self.retry.max_retries, delay, message, status)
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
            raise _StreamCut("the connection closed before the response was complete")

    def _classify(self, exc: BaseException) -> tuple[int | None, str, bool]:
        """(status, message for the person, retryable?) for an exception."""
        sdk = self._anthropic
        if isinstance(exc, _StreamCut):
            return None, f"Stream interrupted: {exc}", True
        if isinstance(exc, sdk.APIStatusError):
            error = _error_body(exc.body)
            status = exc.status_code
            if status == 200 and error:  # an `error` event inside the stream
                status = _ERROR_TYPE_STATUS.get(error.get("type", ""), 500)
            message = error.get("message") if error else None
            text = f"API Error {status}: {message or exc.message}"
            return status, text, is_retryable_status(status)
        if isinstance(exc, sdk.APIConnectionError):
            cause = exc.__cause__ or exc
            return None, f"Connection error: {cause or exc.message}", True
        if isinstance(exc, (OSError, asyncio.TimeoutError)) or _is_transport_error(exc):
            return None, f"Connection error: {exc or type(exc).__name__}", True
        return None, f"Unexpected error from the model API: {type(exc).__name__}: {exc}", False


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
    """Parse the streamed input JSON. Invalid JSON becomes a marker the engine reports."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"__invalid_json__": text}
    return value if isinstance(value, dict) else {"__invalid_json__": text}


def _error_body(body: object) -> dict[str, Any] | None:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            return error
        if "type" in body and "message" in body:
            return body
    return None


def _retry_after(exc: BaseException) -> str | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return str(float(millis) / 1000)
        except ValueError:
            pass
    return headers.get("retry-after")


def _is_transport_error(exc: BaseException) -> bool:
    """httpx / httpx2 transport errors raised while iterating a stream."""
    module = type(exc).__module__ or ""
    return module.split(".")[0] in ("httpx", "httpx2", "httpcore", "httpcore2", "h11")
