"""One streamed POST to an OpenAI-style API over httpx, retried by our policy.

Both OpenAI providers (Chat Completions and Responses) send a JSON body and
read Server-Sent Events back; they differ only in the body they build and in
how they read the events. This module owns what they share: the connection
(httpx, not the `openai` SDK, whose import alone would cost more than the
rest of starting up), the SSE framing, and the retry loop, which behaves like
the Anthropic provider's: transient failures are retried with the shared
policy and reported as `Retrying` events, a response that breaks after
content arrived is never replayed, and the last word names what to check.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol

from agentcli.core.abort import AbortSignal
from agentcli.providers import http_errors
from agentcli.providers.base import ModelError, ProviderEvent, Retrying
from agentcli.providers.failures import Failure, StreamCut, classify
from agentcli.providers.httpx_lean import httpx
from agentcli.providers.retry import GiveUp, RetryPolicy, RetryRun, Timeouts
from agentcli.providers.sse import SseEvent, sse_events
from agentcli.providers.tls import context as tls_context


class StreamReader(Protocol):
    """Turns one response's events into provider events."""

    content_started: bool  # something the person saw arrived: never replay it
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
    """An httpx client for one endpoint, and the retry loop around each request."""

    def __init__(
        self, endpoint: Endpoint, retry: RetryPolicy | None, timeouts: Timeouts | None
    ) -> None:
        self.endpoint = endpoint
        self.retry = retry or RetryPolicy()
        self.timeouts = timeouts or Timeouts()
        headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
        self._client = httpx.AsyncClient(
            base_url=endpoint.base_url.rstrip("/"),
            headers=headers,
            timeout=httpx.Timeout(self.timeouts.idle_s, connect=self.timeouts.connect_s),
            verify=tls_context(),  # made while the app started (providers/tls.py)
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def get_json(self, path: str, timeout_s: float) -> Any:
        """GET `path` under the base URL, once, within `timeout_s`. Raises httpx errors."""
        response = await self._client.get(path, timeout=timeout_s)
        response.raise_for_status()
        return response.json()

    async def stream(
        self, body: dict[str, Any], new_reader: type[StreamReader], abort: AbortSignal
    ) -> AsyncIterator[ProviderEvent]:
        """POST `body` and stream its events through a fresh reader per attempt."""
        retries = RetryRun(self.retry)
        while True:
            reader = new_reader()
            try:
                async for event in self._once(body, reader):
                    yield event
                return
            except Exception as exc:
                failure = classify(exc, http_errors, self.timeouts)
                if reader.content_started or not failure.retryable:
                    raise ModelError(_final(failure, reader), status=failure.status) from exc
                try:
                    delay = retries.next_delay(failure.retry_after)
                except GiveUp as spent:
                    raise ModelError(self._gave_up(failure, spent), status=failure.status) from exc
                yield Retrying(
                    retries.retries, self.retry.max_retries, delay, failure.cause, failure.status
                )
                if await abort.sleep(delay):
                    return

    async def _once(
        self, body: dict[str, Any], reader: StreamReader
    ) -> AsyncIterator[ProviderEvent]:
        async with self._client.stream("POST", self.endpoint.path, json=body) as response:
            if response.status_code >= 400:
                raise http_errors.status_error(response, await response.aread())
            async for event in sse_events(response.aiter_lines()):
                if not event.data.strip():  # a keep-alive
                    continue
                for item in reader.handle(event):
                    yield item
        if not reader.finished:
            raise StreamCut("the connection closed before the response was complete")

    def _gave_up(self, failure: Failure, spent: GiveUp) -> str:
        message = f"{failure.cause}; {spent.reason}"
        if failure.status is not None:
            return message
        name, address = self.endpoint.name, self.endpoint.base_url
        slow = "; a server that is only slow needs a longer AGENTCLI_STREAM_IDLE_TIMEOUT_MS"
        return (
            f"{message}. Check that the server of provider {name!r} runs at {address}"
            f" (its baseUrl in the settings){slow if failure.silence else ''}."
        )


def _final(failure: Failure, reader: StreamReader) -> str:
    if reader.content_started and failure.retryable:
        return (
            f"{failure.cause}: the response was cut off midway"
            " (not retried, since part of it had already arrived)"
        )
    return failure.cause


def stream_error(payload: dict[str, Any]) -> http_errors.APIStatusError:
    """An error reported inside a 200 stream (`{"error": {...}}`)."""
    error = payload.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    return http_errors.APIStatusError(
        str(message or "error in the response stream"), status_code=200, body=payload
    )
