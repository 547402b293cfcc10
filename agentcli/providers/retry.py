"""When and how long to wait on the API, and when to stop waiting.

Transient failures (rate limits, overload, server errors, dropped connections,
a server that stays silent) are retried with exponential backoff and jitter;
the server's `retry-after` wins when it gives one. Client errors (400, 401,
403, 404, 413) are final.

Retrying one request is bounded twice: by a number of retries and by a total
time. Ten minutes by default: long enough to ride out a short overload or a
network blip (eight backoffs take about a minute and a half; a silent server
costs two minutes an attempt), short enough that a script or a CI job learns
within minutes that the API is unreachable rather than hanging for an hour.
No wait starts that would end past the budget, and no attempt starts once it
is spent, so the retrying ends at most one attempt's timeout after it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
TOTAL_SETTING = "AGENTCLI_RETRY_MAX_TOTAL_MS"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 8
    base_delay_s: float = 0.5
    max_delay_s: float = 32.0
    max_total_s: float = 600.0  # the whole retrying of one request (see the module doc)

    def backoff(self, retry: int) -> float:
        """Seconds to wait before retry number `retry` (1-based), with jitter."""
        full = min(self.base_delay_s * 2.0 ** (retry - 1), self.max_delay_s)
        return full * (1 - 0.25 * random.random())


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long one attempt may wait: to connect, and for its next byte.

    `idle_s` counts from the request to the response's headers and between any
    two chunks of the stream: a server that accepts and never answers, and one
    that stalls midway, are both caught by it.
    """

    connect_s: float = 10.0
    idle_s: float = 120.0


class GiveUp(Exception):
    """No retry is left: `reason` says why, for the person."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RetryRun:
    """The retrying of one request, counted against the policy's retries and time."""

    def __init__(self, policy: RetryPolicy, clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy
        self.retries = 0
        self._clock = clock
        self._started = clock()

    def next_delay(self, retry_after: str | None = None) -> float:
        """Seconds to wait before the next attempt. Raises `GiveUp` when there is none."""
        policy = self.policy
        elapsed = self._clock() - self._started
        tried = f"gave up after {_attempts(self.retries + 1)} in {format_seconds(elapsed)}"
        if self.retries >= policy.max_retries:
            raise GiveUp(tried)
        asked = parse_retry_after(retry_after)
        delay = asked if asked is not None else policy.backoff(self.retries + 1)
        limit = f"the retry time limit of {format_seconds(policy.max_total_s)} ({TOTAL_SETTING})"
        left = policy.max_total_s - elapsed
        if left <= 0:
            raise GiveUp(f"{tried}: {limit} is spent")
        if asked is not None and asked >= left:
            raise GiveUp(
                f"the server asked to wait {format_seconds(asked)}, more than the "
                f"{format_seconds(left)} left of {limit}; {tried}"
            )
        if delay >= left:
            raise GiveUp(f"{tried}: waiting {format_seconds(delay)} more would pass {limit}")
        self.retries += 1
        return delay


def is_retryable_status(status: int | None) -> bool:
    return status is not None and (status in RETRYABLE_STATUS or status >= 500)


def parse_retry_after(value: str | None) -> float | None:
    """`retry-after` is seconds or an HTTP date; anything else is ignored."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        from datetime import UTC, datetime
        from email.utils import parsedate_to_datetime  # only for a date: not on every start

        when = parsedate_to_datetime(value)
        return max(0.0, (when - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError, IndexError):
        return None


def format_seconds(seconds: float) -> str:
    """`0.05 s`, `4 s`, `1 min 35 s`, `10 min`: a duration as a person reads it."""
    if seconds <= 0:
        return "0 s"
    if seconds < 1:
        return f"{seconds:.1g} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


def _attempts(count: int) -> str:
    return "1 attempt" if count == 1 else f"{count} attempts"
