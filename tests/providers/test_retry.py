"""Retry timing: backoff, `retry-after`, and the budget of attempts and time.

A fake clock stands in for time, so the budget is checked without waiting.
"""

from __future__ import annotations

import pytest

from agentcli.providers.retry import GiveUp, RetryPolicy, RetryRun, format_seconds


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def run_of(policy: RetryPolicy) -> tuple[RetryRun, Clock]:
    clock = Clock()
    return RetryRun(policy, clock=clock), clock


def test_backoff_doubles_with_jitter_up_to_the_cap():
    run, _ = run_of(RetryPolicy(max_retries=10, base_delay_s=1.0, max_delay_s=4.0))

    delays = [run.next_delay() for _ in range(4)]

    for delay, full in zip(delays, [1.0, 2.0, 4.0, 4.0], strict=True):
        assert 0.75 * full <= delay <= full


def test_retry_after_wins_over_backoff():
    run, _ = run_of(RetryPolicy(base_delay_s=30.0))

    assert run.next_delay("2") == 2.0
    assert run.retries == 1


def test_max_retries_ends_the_run():
    run, clock = run_of(RetryPolicy(max_retries=2, base_delay_s=0.0))
    run.next_delay()
    run.next_delay()
    clock.now += 95

    with pytest.raises(GiveUp) as spent:
        run.next_delay()

    assert spent.value.reason == "gave up after 3 attempts in 1 min 35 s"


def test_time_spent_ends_the_run_before_max_retries():
    run, clock = run_of(RetryPolicy(max_retries=100, base_delay_s=0.0, max_total_s=600.0))
    run.next_delay()
    clock.now += 600

    with pytest.raises(GiveUp) as spent:
        run.next_delay()

    assert spent.value.reason == (
        "gave up after 2 attempts in 10 min: the retry time limit of 10 min"
        " (AGENTCLI_RETRY_MAX_TOTAL_MS) is spent"
    )


def test_a_wait_that_would_pass_the_budget_is_not_started():
    run, clock = run_of(RetryPolicy(base_delay_s=0.0, max_total_s=600.0))
    clock.now += 590

    with pytest.raises(GiveUp) as spent:
        run.next_delay("30")

    assert spent.value.reason == (
        "the server asked to wait 30 s, more than the 10 s left of the retry time limit"
        " of 10 min (AGENTCLI_RETRY_MAX_TOTAL_MS); gave up after 1 attempt in 9 min 50 s"
    )
    assert run.retries == 0


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (0, "0 s"),
        (0.05, "0.05 s"),
        (0.4321, "0.4 s"),
        (3.6, "4 s"),
        (59.4, "59 s"),
        (60, "1 min"),
        (95, "1 min 35 s"),
        (600, "10 min"),
        (7260, "121 min"),
    ],
)
def test_durations_read_naturally(seconds, words):
    assert format_seconds(seconds) == words
