"""The errors our HTTP providers raise below their retry loop, in the SDK's names.

`failures.classify()` reads three names from the module it is given
(`APIStatusError`, `APIConnectionError`, `APITimeoutError`), as the `anthropic`
SDK spells them; this module offers the same three for our own clients (the
Messages API's and the OpenAI-compatible ones), so a failure is worded and
retried the same way whichever server sent it. The connection errors are the
lean client's (providers/lean_http.py); httpx's, when httpx carried the request,
are known to failures.py by their module, so httpx is not imported here.
"""

from __future__ import annotations

import json
from typing import Any

from agentcli.providers.lean_http import TimeoutException, TransportError

APIConnectionError = TransportError
APITimeoutError = TimeoutException

__all__ = ["APIConnectionError", "APIStatusError", "APITimeoutError", "event_error", "status_error"]

_TEXT_SHOWN = 500  # of an error body that is not JSON (a proxy's HTML page, say)


class APIStatusError(Exception):
    """The API answered with an error: an HTTP status, or an `error` event inside a
    200 stream (then `status_code` is 200 and `body` the event's JSON)."""

    def __init__(self, message: str, *, status_code: int, body: Any, response: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.body = body
        self.response = response


def status_error(response: Any, raw: bytes) -> APIStatusError:
    """The error a response with an error status and body `raw` stands for."""
    text = raw.decode("utf-8", "replace").strip()
    try:
        body: Any = json.loads(text)
    except ValueError:
        body = None
    status = response.status_code
    if body is not None:
        message = f"Error code: {status} - {body}"
    else:
        message = _shortened(text) or f"Error code: {status}"
    return APIStatusError(message, status_code=status, body=body, response=response)


def event_error(response: Any, data: str) -> APIStatusError:
    """The error an `event: error` in the stream stands for."""
    try:
        body: Any = json.loads(data)
    except ValueError:
        body = None
    message = _shortened(data) or f"Error code: {response.status_code}"
    return APIStatusError(message, status_code=response.status_code, body=body, response=response)


def _shortened(text: str) -> str:
    """`text` on one line, cut to a length a message can carry."""
    line = " ".join(text.split())
    return line if len(line) <= _TEXT_SHOWN else line[: _TEXT_SHOWN - 1] + "…"
