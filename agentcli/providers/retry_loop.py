"""Streaming one request with retries: the loop every provider runs around its attempts.

Retrying happens here rather than in an HTTP library, so each retry can be
reported to the person as a `Retrying` event, and so a stream that breaks
*after* content arrived is never silently replayed. A provider gives only
what differs: how one attempt streams, and where to look when its server
cannot be reached. When to wait and for how long is retry.py's policy.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Protocol, TypeVar

from agentcli.core.abort import AbortSignal
from agentcli.providers import http_errors
from agentcli.providers.base import ModelError, ProviderEvent, Retrying
from agentcli.providers.failures import Failure, classify
from agentcli.providers.retry import GiveUp, RetryPolicy, RetryRun, Timeouts

SLOW_HINT = "; a server that is only slow needs a longer AGENTCLI_STREAM_IDLE_TIMEOUT_MS"


class Progress(Protocol):
    """What one attempt has shown so far."""

    content_started: bool  # something the person saw arrived: never replay it


P = TypeVar("P", bound=Progress)


async def stream_with_retries(
    new_progress: Callable[[], P],
    attempt: Callable[[P], AsyncIterator[ProviderEvent]],
    *,
    policy: RetryPolicy,
    timeouts: Timeouts,
    abort: AbortSignal,
    check: str,
) -> AsyncIterator[ProviderEvent]:
    """The events of `attempt(new_progress())`, tried again on transient failures.

    `check` completes "Check that ..." in the last word on a server that never
    answered: its address, and the setting that names it. Raises ModelError.
    """
    retries = RetryRun(policy)
    while True:
        progress = new_progress()
        try:
            async for event in attempt(progress):
                yield event
            return
        except Exception as exc:
            failure = classify(exc, http_errors, timeouts)
            if progress.content_started or not failure.retryable:
                message = final_message(failure, progress.content_started)
                raise ModelError(message, status=failure.status) from exc
            try:
                delay = retries.next_delay(failure.retry_after)
            except GiveUp as spent:
                message = gave_up_message(failure, spent, check)
                raise ModelError(message, status=failure.status) from exc
            yield Retrying(
                retries.retries, policy.max_retries, delay, failure.cause, failure.status
            )
            if await abort.sleep(delay):
                return


def final_message(failure: Failure, content_started: bool) -> str:
    """The last word on a failure that is not retried."""
    if content_started and failure.retryable:
        return (
            f"{failure.cause}: the response was cut off midway"
            " (not retried, since part of it had already arrived)"
        )
    return failure.cause


def gave_up_message(failure: Failure, spent: GiveUp, check: str) -> str:
    """The last word on a request retried in vain: what, how long, what to check."""
    message = f"{failure.cause}; {spent.reason}"
    if failure.status is not None:  # the API answered: the address and network are fine
        return message
    return f"{message}. Check that {check}{SLOW_HINT if failure.silence else ''}."
