"""What went wrong with one model request, in the few words a person needs.

The HTTP client and the stack under it raise many kinds of errors, often wrapped
several deep ("Connection error." caused by "All connection attempts failed"
caused by a refused connection). The person needs the cause ("connection
refused", "no response for 2 min", "API Error 529: Overloaded"); the retry
logic needs to know whether trying again can help, and what the server asked.
"""

from __future__ import annotations

import socket
import ssl
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from agentcli.providers.lean_http import TransportError
from agentcli.providers.retry import Timeouts, format_seconds, is_retryable_status

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


@dataclass(frozen=True, slots=True)
class Failure:
    cause: str
    status: int | None = None  # None: no HTTP answer came (the address, the network)
    retryable: bool = True
    retry_after: str | None = None  # the server's `retry-after`, in seconds or a date
    silence: bool = False  # the idle timeout fired: the server may be down, or only slow


class StreamCut(Exception):
    """The connection ended before `message_stop`."""


class StreamGarbled(Exception):
    """The stream held an event that is not the API's protocol (data that is not a JSON
    object): a proxy or server speaking something else. Not retried."""


def classify(exc: BaseException, sdk: ModuleType, timeouts: Timeouts) -> Failure:
    """The failure behind `exc`, raised by the `sdk` or below it: a module with the
    `anthropic` SDK's three error names (providers/http_errors.py, for our client)."""
    if isinstance(exc, StreamCut):
        return Failure(str(exc))
    if isinstance(exc, StreamGarbled):
        return Failure(f"the server's response stream could not be read: {exc}", retryable=False)
    if isinstance(exc, sdk.APIStatusError):
        return _status_failure(exc)
    if isinstance(exc, (sdk.APIConnectionError, OSError)) or _is_transport_error(exc):
        return _transport_failure(exc, sdk, timeouts)
    return Failure(
        f"Unexpected error from the model API: {type(exc).__name__}: {exc}", retryable=False
    )


def _status_failure(exc: Any) -> Failure:
    error = _error_body(exc.body)
    status = exc.status_code
    if status == 200 and error:  # an `error` event inside the stream
        status = _ERROR_TYPE_STATUS.get(error.get("type", ""), 500)
    message = error.get("message") if error else None
    return Failure(
        f"API Error {status}: {message or exc.message}",
        status,
        is_retryable_status(status),
        _retry_after(exc),
    )


def _transport_failure(exc: BaseException, sdk: ModuleType, timeouts: Timeouts) -> Failure:
    """No HTTP answer: the innermost cause a person can act on, from the exception chain."""
    idle, connect = format_seconds(timeouts.idle_s), format_seconds(timeouts.connect_s)
    silence = Failure(f"no response for {idle}", silence=True)
    by_name = {
        "ConnectTimeout": f"no connection within {connect}",
        "WriteTimeout": f"the request could not be sent within {idle}",
        "PoolTimeout": f"no free connection within {idle}",
        "RemoteProtocolError": "the connection closed before the response was complete",
    }
    for error in _chain(exc):
        name = type(error).__name__
        if name == "ReadTimeout" and _is_transport_error(error):
            return silence
        if name in by_name and _is_transport_error(error):
            return Failure(by_name[name])
        if isinstance(error, ConnectionRefusedError):
            return Failure("connection refused")
        if isinstance(error, ConnectionResetError):
            return Failure("connection reset")
        if isinstance(error, socket.gaierror):
            return Failure(f"host not found ({error.strerror or error})")
        if isinstance(error, ssl.SSLError):
            return Failure(f"TLS failed ({error.reason or error})")
    if isinstance(exc, sdk.APITimeoutError) or _is_httpx_timeout(exc):
        return silence
    said = [str(error) for error in _chain(exc) if str(error)]
    return Failure(f"connection error: {said[-1] if said else type(exc).__name__}")


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


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
    after = headers.get("retry-after")
    return after if isinstance(after, str) else None


def _is_transport_error(exc: BaseException) -> bool:
    """Transport errors raised while iterating a stream: the lean client's
    (providers/lean_http.py), httpx's / httpx2's and those of the libraries under them."""
    if isinstance(exc, TransportError):
        return True
    module = type(exc).__module__ or ""
    return module.split(".")[0] in ("httpx", "httpx2", "httpcore", "httpcore2", "h11")


def _is_httpx_timeout(exc: BaseException) -> bool:
    """An httpx timeout, when httpx carried the request (it is loaded then, not here)."""
    httpx = sys.modules.get("httpx")
    return httpx is not None and isinstance(exc, httpx.TimeoutException)
