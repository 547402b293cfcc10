"""When and how long to wait before retrying a model request.

Transient failures (rate limits, overload, server errors, dropped connections)
are retried with exponential backoff and jitter; the server's `retry-after`
wins when it gives one. Client errors (400, 401, 403, 404, 413) are final.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 8
    base_delay_s: float = 0.5
    max_delay_s: float = 32.0
    # Never wait longer than this even if the server asks for more.
    max_retry_after_s: float = 300.0

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        """Seconds to wait before retry number `attempt` (1-based)."""
        asked = parse_retry_after(retry_after)
        if asked is not None:
            return min(asked, self.max_retry_after_s)
        backoff = min(self.base_delay_s * (2 ** (attempt - 1)), self.max_delay_s)
        return backoff * (1 - 0.25 * random.random())


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

        when = parsedate_to_datetime(value)
        return max(0.0, (when - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError, IndexError):
        return None
