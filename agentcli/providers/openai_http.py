"""One streamed POST to an OpenAI-style API, retried by our policy.

Both OpenAI providers (Chat Completions and Responses) send a JSON body and
read Server-Sent Events back; they differ only in the path they post to, the
body they build and how they read the events. This module owns what they
share: the provider's shape (`OpenAIProvider`), the connection (providers/model_http.py:
the lean client, or httpx where it does not apply; not the `openai` SDK, whose
import alone would cost more than the rest of starting up), the SSE framing, and the retry loop around each request
(providers/retry_loop.py, the Anthropic provider's too), whose last word on
an unreachable server names the provider and its baseUrl.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol

from agentcli.core.abort import AbortSignal
from agentcli.core.model_catalog import ModelSpec, openai_effort, openai_efforts
from agentcli.providers import http_errors
from agentcli.providers.base import ModelRequest, ProviderEvent
from agentcli.providers.failures import StreamCut
from agentcli.providers.model_http import ModelHttp
from agentcli.providers.retry import RetryPolicy, Timeouts
from agentcli.providers.retry_loop import Progress, stream_with_retries
from agentcli.providers.sse import SseEvent, sse_events
from agentcli.providers.tls import context as tls_context


class StreamReader(Progress, Protocol):
    """Turns one response's events into provider events."""

    finished: bool  # the response's end arrived

    def handle(self, event: SseEvent) -> list[ProviderEvent]: ...


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a provider sends its requests, and what to say when it cannot be reached."""

    name: str  # the provider's name in the settings, for messages
    base_url: str
    api_key: str | None
    path: str  # "/chat/completions" or "/responses", under base_url


class OpenAIHttp:
    """The HTTP client of one endpoint, and the retry loop around each request."""

    def __init__(
        self, endpoint: Endpoint, retry: RetryPolicy | None, timeouts: Timeouts | None
    ) -> None:
        self.endpoint = endpoint
        self.retry = retry or RetryPolicy()
        self.timeouts = timeouts or Timeouts()
        headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
        self._client = ModelHttp(
            endpoint.base_url.rstrip("/"),
            headers,
            self.timeouts,
            tls_context(),  # made while the app started (providers/tls.py)
            follow_redirects=False,
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def get_json(self, path: str, timeout_s: float) -> Any:
        """GET `path` under the base URL, once, within `timeout_s`. Raises httpx errors."""
        response = await self._client.httpx_client().get(path, timeout=timeout_s)
        response.raise_for_status()
        return response.json()

    def stream(
        self, body: dict[str, Any], new_reader: type[StreamReader], abort: AbortSignal
    ) -> AsyncIterator[ProviderEvent]:
        """POST `body` and stream its events through a fresh reader per attempt."""
        name, address = self.endpoint.name, self.endpoint.base_url
        return stream_with_retries(
            new_reader,
            lambda reader: self._once(body, reader),
            policy=self.retry,
            timeouts=self.timeouts,
            abort=abort,
            check=f"the server of provider {name!r} runs at {address} (its baseUrl in the settings)",
        )

    async def _once(
        self, body: dict[str, Any], reader: StreamReader
    ) -> AsyncIterator[ProviderEvent]:
        async with self._client.stream(
            "POST", self.endpoint.path, _json_bytes(body), _JSON
        ) as response:
            if response.status_code >= 400:
                raise http_errors.status_error(response, await response.aread())
            async for event in sse_events(response.aiter_lines()):
                if not event.data.strip():  # a keep-alive
                    continue
                for item in reader.handle(event):
                    yield item
        if not reader.finished:
            raise StreamCut("the connection closed before the response was complete")


_JSON = {"Content-Type": "application/json"}


def _json_bytes(body: dict[str, Any]) -> bytes:
    """The body as httpx's `json=` encodes it (httpx/_content.py), byte for byte."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8")


class OpenAIProvider(ABC):
    """A provider for `POST {base_url}{path}`: a subclass names its API (`name`, also
    the default `provider_name`), the `path`, the `reader` of a response's events,
    and builds the request's `body`."""

    name: str
    path: str
    reader: type[StreamReader]

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None = None,
        provider_name: str | None = None,
        max_tokens: dict[str, int] | None = None,
        reasoning_efforts: dict[str, tuple[str, ...]] | None = None,
        retry: RetryPolicy | None = None,
        timeouts: Timeouts | None = None,
    ) -> None:
        label = self.name if provider_name is None else provider_name
        self.http = OpenAIHttp(Endpoint(label, base_url, api_key, self.path), retry, timeouts)
        self._max_tokens = max_tokens or {}  # per model, from the settings
        self._efforts = reasoning_efforts or {}  # per model, from the settings

    def reasoning_effort(self, request: ModelRequest) -> str | None:
        """The `reasoning_effort` to send for the request's effort level, if the model
        takes one (core/model_catalog.py `openai_efforts`)."""
        effort = request.reasoning.effort if request.reasoning is not None else None
        if effort is None:
            return None
        spec = ModelSpec(reasoning_efforts=self._efforts.get(request.model))
        return openai_effort(effort, openai_efforts(request.model, spec))

    async def aclose(self) -> None:
        await self.http.aclose()

    async def stream(
        self, request: ModelRequest, abort: AbortSignal
    ) -> AsyncIterator[ProviderEvent]:
        body = self.body(request, self._max_tokens.get(request.model))
        body.update(self.reasoning_fields(self.reasoning_effort(request)))
        async for event in self.http.stream(body, self.reader, abort):
            yield event

    @abstractmethod
    def body(self, request: ModelRequest, max_tokens: int | None) -> dict[str, Any]:
        """The JSON body of `request`; `max_tokens` when the model's settings give one."""

    @abstractmethod
    def reasoning_fields(self, effort: str | None) -> dict[str, Any]:
        """The body's fields for a reasoning effort (None: none to send)."""


DONE = "[DONE]"  # the data of the event that ends a Chat Completions stream


def is_done(event: SseEvent) -> bool:
    """The `data: [DONE]` end marker: Chat Completions' last event, which proxies
    (LiteLLM's) also send after a Responses stream's `response.completed`."""
    return event.data.strip() == DONE


def stream_error(payload: dict[str, Any]) -> http_errors.APIStatusError:
    """An error reported inside a 200 stream (`{"error": {...}}`)."""
    error = payload.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    return http_errors.APIStatusError(
        str(message or "error in the response stream"), status_code=200, body=payload
    )
