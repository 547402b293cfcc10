"""Naming a failed request's cause from the exception chains the SDK really raises.

The common chains (refused, silent, cut, HTTP errors) are exercised over real
sockets in tests/integration; these are the ones a loopback server cannot
provoke reliably (DNS, a connect timeout), built the way httpx2 builds them.
"""

from __future__ import annotations

import socket

import anthropic
import httpx2

from agentcli.providers.failures import classify
from agentcli.providers.retry import Timeouts

TIMEOUTS = Timeouts(connect_s=10.0, idle_s=120.0)
REQUEST = httpx2.Request("POST", "https://api.example.com/v1/messages")


def wrapped(inner: BaseException, outer: BaseException) -> BaseException:
    """`outer` raised from `inner`, as `raise outer from inner` leaves it."""
    outer.__cause__ = inner
    return outer


def test_a_host_that_does_not_resolve_is_named():
    lookup = socket.gaierror(-2, "Name or service not known")
    error = wrapped(
        wrapped(lookup, httpx2.ConnectError("[Errno -2] Name or service not known")),
        anthropic.APIConnectionError(request=REQUEST),
    )

    failure = classify(error, anthropic, TIMEOUTS)

    assert failure.cause == "host not found (Name or service not known)"
    assert failure.retryable and failure.status is None and not failure.silence


def test_a_connect_timeout_names_the_connect_limit_not_the_idle_one():
    error = wrapped(httpx2.ConnectTimeout(""), anthropic.APITimeoutError(request=REQUEST))

    failure = classify(error, anthropic, TIMEOUTS)

    assert failure.cause == "no connection within 10 s" and not failure.silence


def test_silence_before_the_headers_is_named_with_the_idle_timeout():
    error = wrapped(httpx2.ReadTimeout(""), anthropic.APITimeoutError(request=REQUEST))

    failure = classify(error, anthropic, TIMEOUTS)

    assert failure.cause == "no response for 2 min" and failure.silence


def test_an_unknown_error_is_not_retried():
    failure = classify(KeyError("surprise"), anthropic, TIMEOUTS)

    assert not failure.retryable
    assert failure.cause == "Unexpected error from the model API: KeyError: 'surprise'"
