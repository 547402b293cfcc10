"""How patient agentcli is with the API, read from the environment.

| variable | what it sets | default |
| --- | --- | --- |
| `AGENTCLI_MAX_RETRIES` | retries of one request | 8 |
| `AGENTCLI_RETRY_BASE_DELAY_MS` | the first backoff (it doubles, up to 32 s) | 500 |
| `AGENTCLI_RETRY_MAX_TOTAL_MS` | the time all retries of one request may take | 600000 |
| `AGENTCLI_STREAM_IDLE_TIMEOUT_MS` | silence (no byte, headers included) that fails an attempt | 120000 |
| `API_TIMEOUT_MS` | Claude Code's name for that wait, read when ours is unset | |

A malformed value never stops agentcli: it becomes one line in `problems`
(shown on stderr in headless mode, as a note in the app) and the next source,
or the default, is used.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from agentcli.providers.retry import RetryPolicy, Timeouts

WHOLE = "a whole number, 0 or more"
MILLIS = "a number of milliseconds, 0 or more"
POSITIVE_MILLIS = "a number of milliseconds above 0"

T = TypeVar("T", int, float)


@dataclass(frozen=True, slots=True)
class ApiTuning:
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeouts: Timeouts = field(default_factory=Timeouts)
    problems: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ApiTuning:
        read = _Reader(os.environ if env is None else env)
        retry, timeouts = RetryPolicy(), Timeouts()
        retry = RetryPolicy(
            max_retries=read.count("AGENTCLI_MAX_RETRIES", retry.max_retries),
            base_delay_s=read.millis(
                ["AGENTCLI_RETRY_BASE_DELAY_MS"], retry.base_delay_s, zero_ok=True
            ),
            max_delay_s=retry.max_delay_s,
            max_total_s=read.millis(["AGENTCLI_RETRY_MAX_TOTAL_MS"], retry.max_total_s),
        )
        timeouts = Timeouts(
            connect_s=timeouts.connect_s,
            idle_s=read.millis(
                ["AGENTCLI_STREAM_IDLE_TIMEOUT_MS", "API_TIMEOUT_MS"], timeouts.idle_s
            ),
        )
        return cls(retry, timeouts, tuple(read.problems))


class _Reader:
    """Reads variables in order of precedence, noting each malformed one."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.problems: list[str] = []

    def count(self, name: str, default: int) -> int:
        return self._first([name], default, _whole, WHOLE, str)

    def millis(self, names: list[str], default_s: float, *, zero_ok: bool = False) -> float:
        expected = MILLIS if zero_ok else POSITIVE_MILLIS
        millis = self._first(names, default_s * 1000, _millis(zero_ok), expected, _shown_number)
        return millis / 1000

    def _first(
        self,
        names: list[str],
        default: T,
        parse: Callable[[str], T | None],
        expected: str,
        show: Callable[[T], str],
    ) -> T:
        """The first well-formed value among `names` (blank means unset), else `default`."""
        malformed: list[str] = []
        value = default
        for name in names:
            raw = self.env.get(name, "").strip()
            if not raw:
                continue
            parsed = parse(raw)
            if parsed is not None:
                value = parsed
                break
            malformed.append(f"{name}={raw if raw.isprintable() else repr(raw)}")
        self.problems.extend(f"{bad} is not {expected}; using {show(value)}" for bad in malformed)
        return value


def _whole(raw: str) -> int | None:
    return int(raw) if raw.isascii() and raw.isdigit() else None


def _millis(zero_ok: bool) -> Callable[[str], float | None]:
    def parse(raw: str) -> float | None:
        try:
            value = float(raw)
        except ValueError:
            return None
        if not math.isfinite(value) or value < 0 or (value == 0 and not zero_ok):
            return None
        return value

    return parse


def _shown_number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)
