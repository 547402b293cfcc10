"""POST /v1/messages with `stream: true`: the Messages API's own wire.

Importing the `anthropic` SDK costs more than everything else a one-shot run
does (issue 16: 1.4 s, most of it the SDK's type modules), and the provider
never used what that buys: it reads the raw events and retries by itself. So
the request goes out here, as the pinned SDK (2.14) sends it: the same
headers (the key as a bearer token, the API version, ANTHROPIC_CUSTOM_HEADERS),
the same JSON, the same timeouts, over providers/model_http.py (the lean
client, or httpx where it does not apply). What comes back is each event's JSON, in
order; `ping` and unnamed events are skipped and an `error` event is raised,
as the SDK does.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator, Mapping
from typing import Any

from agentcli import __version__
from agentcli.providers.http_errors import event_error, status_error
from agentcli.providers.model_http import ModelHttp
from agentcli.providers.retry import Timeouts
from agentcli.providers.sse import event_json, sse_events
from agentcli.providers.tls import context as tls_context

API_VERSION = "2026-10-21"  # what anthropic 2.14 sends
DEFAULT_BASE_URL = "https://api.anthropic.com"
MESSAGES_PATH = "/v1/messages"


def request_headers(
    api_key: str | None, auth_token: str | None, custom: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The headers of every request: an API key wins over an auth token, as in the SDK,
    and the person's custom headers win over everything."""
    return {
        "accept": "application/json",
        "content-type": "application/json",
        "user-agent": f"agentcli/{__version__}",
        "anthropic-version": API_VERSION,
        "authorization": f"Bearer {api_key or auth_token}",
        **(custom or {}),
    }


def custom_headers(value: str | None) -> dict[str, str]:
    """`ANTHROPIC_CUSTOM_HEADERS`: one `Name: value` a line; a line without a colon or a
    name is skipped."""
    headers: dict[str, str] = {}
    for line in (value or "").split("\n"):
        name, colon, rest = line.partition(":")
        if colon and name.strip():
            headers[name.strip()] = rest.strip()
    return headers


def base_url_of(given: str | None) -> str:
    """The API's address: the one given, else ANTHROPIC_BASE_URL, else Anthropic's."""
    return given or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL


class MessagesWire:
    """One HTTP client (its connections kept alive between requests) for streamed messages."""

    def __init__(self, base_url: str, headers: Mapping[str, str], timeouts: Timeouts) -> None:
        self._client = ModelHttp(
            base_url,
            headers,
            timeouts,
            tls_context(),  # made while the app started (providers/tls.py)
            follow_redirects=True,
        )

    @property
    def base_url(self) -> str:
        return self._client.base_url

    async def aclose(self) -> None:
        await self._client.aclose()

    async def events(self, body: Mapping[str, Any]) -> AsyncGenerator[dict[str, Any], None]:
        """Send `body`; yield each event's JSON. Raises `APIStatusError` on an error status
        or an `error` event, the HTTP client's (httpx's names) when the connection fails
        or falls silent.
        Closing this generator closes the response (and its connection, if unfinished)."""
        content = json.dumps(body).encode()
        async with self._client.stream("POST", MESSAGES_PATH, content) as response:
            if not response.is_success:
                raise status_error(response, await response.aread())
            async for sse in sse_events(response.aiter_lines()):
                if sse.event is None or sse.event == "ping":
                    continue
                if sse.event == "error":
                    raise event_error(response, sse.data)
                if sse.data:
                    yield event_json(sse)
