"""The errors of a provider that speaks HTTP through httpx itself, in the SDK's names.

`failures.classify()` reads three names from the SDK it is given
(`APIStatusError`, `APIConnectionError`, `APITimeoutError`); this module
offers the same three for providers without an SDK, so an OpenAI-compatible
server's failures are worded and retried exactly like the Anthropic API's.
"""

from __future__ import annotations

from typing import Any

from httpx import Response
from httpx import TimeoutException as APITimeoutError
from httpx import TransportError as APIConnectionError

__all__ = ["APIConnectionError", "APIStatusError", "APITimeoutError", "status_error"]


class APIStatusError(Exception):
    """The server answered with an error: an HTTP status, or an error event in a
    200 stream (`status_code` 200, the event's JSON in `body`)."""

    def __init__(
        self, message: str, *, status_code: int, body: Any, response: Response | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.body = body
        self.response = response


def status_error(response: Response, raw: bytes) -> APIStatusError:
    """The error a non-2xx `response` with body `raw` stands for."""
    import json

    try:
        body: Any = json.loads(raw)
    except ValueError:
        body = None
    text = raw.decode("utf-8", "replace").strip()
    message = text[:500] if text and body is None else response.reason_phrase or "error"
    return APIStatusError(message, status_code=response.status_code, body=body, response=response)
