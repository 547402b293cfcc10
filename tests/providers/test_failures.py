"""Naming a failed request's cause from the exception chains our HTTP client raises.

The common chains (refused, silent, cut, HTTP errors) are exercised over real
sockets in tests/integration; these are the ones a loopback server cannot
provoke reliably (DNS, a connect timeout), built the way httpx builds them
(its error raised from httpcore's, raised from the socket's).
"""

from __future__ import annotations

import socket

import httpcore
import httpx

from agentcli.providers import http_errors
from agentcli.providers.failures import classify
from agentcli.providers.retry import Timeouts

TIMEOUTS = Timeouts(connect_s=10.0, idle_s=120.0)


def wrapped(inner: BaseException, outer: BaseException) -> BaseException:
    """`outer` raised from `inner`, as `raise outer from inner` leaves it."""
    outer.__cause__ = inner
    return outer


def test_a_host_that_does_not_resolve_is_named():
    lookup = socket.gaierror(-2, "Name or service not known")
    error = wrapped(
        wrapped(lookup, httpcore.ConnectError("[Errno -2] Name or service not known")),
        httpx.ConnectError("[Errno -2] Name or service not known"),
    )

    failure = classify(error, http_errors, TIMEOUTS)

    assert failure.cause == "host not found (Name or service not known)"
    assert failure.retryable and failure.status is None and not failure.silence


def test_a_connect_timeout_names_the_connect_limit_not_the_idle_one():
    error = wrapped(httpcore.ConnectTimeout(""), httpx.ConnectTimeout(""))

    failure = classify(error, http_errors, TIMEOUTS)

    assert failure.cause == "no connection within 10 s" and not failure.silence


def test_silence_before_the_headers_is_named_with_the_idle_timeout():
    error = wrapped(httpcore.ReadTimeout(""), httpx.ReadTimeout(""))

    failure = classify(error, http_errors, TIMEOUTS)

    assert failure.cause == "no response for 2 min" and failure.silence


def test_an_unknown_error_is_not_retried():
    failure = classify(KeyError("surprise"), http_errors, TIMEOUTS)

    assert not failure.retryable
    assert failure.cause == "Unexpected error from the model API: KeyError: 'surprise'"


def test_an_error_page_that_is_not_json_is_quoted_in_short():
    page = b"<html>\n  <body>502 Bad Gateway</body>\n" + b"x" * 2000 + b"</html>"
    error = http_errors.status_error(httpx.Response(502), page)

    failure = classify(error, http_errors, TIMEOUTS)

    assert failure.cause.startswith("API Error 502: <html> <body>502 Bad Gateway</body> xxx")
    assert failure.cause.endswith("x…") and len(failure.cause) < 600
    assert failure.status == 502 and failure.retryable


def test_the_api_error_message_is_the_one_shown():
    body = b'{"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}'
    response = httpx.Response(429, headers={"retry-after": "3"})
    error = http_errors.status_error(response, body)

    failure = classify(error, http_errors, TIMEOUTS)

    assert (failure.cause, failure.retry_after) == ("API Error 429: Slow down", "3")
