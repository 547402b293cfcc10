"""The Anthropic Messages API, streaming, with our own retries.

We read the raw SSE events rather than an accumulating helper: the loop needs
each content block the moment it is complete (to start a safe tool while the
model still streams), and we parse tool input JSON once, at the block's end.
The request itself goes over httpx (providers/anthropic_wire.py), not through
the `anthropic` SDK, whose import alone costs more than the rest of a run.

Retrying is ours too (providers/retry_loop.py), so each retry can be
reported to the person as an event, and so a stream that breaks *after*
content arrived is never silently replayed.

Waiting is bounded at the HTTP level: a short connect timeout, and a read
timeout that is "no byte for N s", counted for the response's headers and
between any two chunks alike (httpx applies it to every socket read). When it
fires, the response is closed, which closes its connection.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from agentcli.config.credentials import credential
from agentcli.core.abort import AbortSignal
from agentcli.providers.anthropic_events import StreamState
from agentcli.providers.anthropic_thinking import thinking_fields
from agentcli.providers.anthropic_wire import (
    MessagesWire,
    base_url_of,
    custom_headers,
    request_headers,
)
from agentcli.providers.base import ModelError, ModelRequest, ProviderEvent
from agentcli.providers.failures import StreamCut
from agentcli.providers.retry import RetryPolicy, Timeouts
from agentcli.providers.retry_loop import stream_with_retries

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
        self.retry = retry or RetryPolicy()
        self.timeouts = timeouts or Timeouts()
        custom = custom_headers(os.environ.get("ANTHROPIC_CUSTOM_HEADERS"))
        self._wire = MessagesWire(
            base_url_of(base_url), request_headers(api_key, auth_token, custom), self.timeouts
        )

    async def aclose(self) -> None:
        """Close the HTTP client while its event loop still runs (no stray warnings)."""
        await self._wire.aclose()

    def stream(self, request: ModelRequest, abort: AbortSignal) -> AsyncIterator[ProviderEvent]:
        check = (
            f"{self._wire.base_url} is the right address (ANTHROPIC_BASE_URL)"
            " and that the network is up"
        )
        return stream_with_retries(
            StreamState,
            lambda state: self._stream_once(request, state),
            policy=self.retry,
            timeouts=self.timeouts,
            abort=abort,
            check=check,
        )

    async def _stream_once(
        self, request: ModelRequest, state: StreamState
    ) -> AsyncIterator[ProviderEvent]:
        async with aclosing(self._wire.events(_body(request))) as events:
            async for raw in events:
                for event in state.handle(raw):
                    yield event
        if not state.finished:
            raise StreamCut("the connection closed before the response was complete")


def _body(request: ModelRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": request.messages,
        "stream": True,
    }
    if request.system:
        body["system"] = request.system
    if request.tools:
        body["tools"] = request.tools
    body.update(
        thinking_fields(request.model, request.reasoning, request.max_tokens, request.messages)
    )
    body.update(request.extra)
    return body
