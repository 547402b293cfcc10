"""The retry loop every provider shares (providers/retry_loop.py), over scripted attempts.

Each attempt is a small generator that yields events or raises what a real
request would (an HTTP status error, a silent server, a cut connection), so
the loop's decisions and its last words are checked without a network: what
is retried and reported, what is never replayed, and what the person is told
to check when the server never answered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.providers.base import ModelError, ProviderEvent, Retrying, TextChunk
from agentcli.providers.failures import StreamCut
from agentcli.providers.http_errors import APIStatusError
from agentcli.providers.httpx_lean import httpx
from agentcli.providers.retry import RetryPolicy, Timeouts
from agentcli.providers.retry_loop import stream_with_retries

CHECK = "http://127.0.0.1:9 is the right address"
SLOW = "; a server that is only slow needs a longer AGENTCLI_STREAM_IDLE_TIMEOUT_MS"


@dataclass
class Progress:
    content_started: bool = False


def overloaded() -> APIStatusError:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    return APIStatusError("Overloaded", status_code=529, body=body)


class Script:
    """Attempts that fail with `failures` in turn, then one that answers "done"."""

    def __init__(self, *failures: BaseException, content_first: bool = False) -> None:
        self.failures = list(failures)
        self.content_first = content_first
        self.attempts = 0

    async def attempt(self, progress: Progress) -> AsyncIterator[ProviderEvent]:
        self.attempts += 1
        if self.content_first:
            progress.content_started = True
            yield TextChunk(0, "partial")
        if self.failures:
            raise self.failures.pop(0)
        yield TextChunk(0, "done")


def run(
    script: Script, retries: int = 2, abort: AbortSignal | None = None, delay_s: float = 0.0
) -> AsyncIterator[ProviderEvent]:
    return stream_with_retries(
        Progress,
        script.attempt,
        policy=RetryPolicy(max_retries=retries, base_delay_s=delay_s),
        timeouts=Timeouts(connect_s=1.0, idle_s=5.0),
        abort=abort or AbortSignal(),
        check=CHECK,
    )


async def collect(events: AsyncIterator[ProviderEvent]) -> list[ProviderEvent]:
    return [event async for event in events]


async def test_a_transient_failure_is_reported_then_retried():
    script = Script(overloaded())

    events = await collect(run(script))

    assert events == [Retrying(1, 2, 0.0, "API Error 529: Overloaded", 529), TextChunk(0, "done")]
    assert script.attempts == 2


async def test_a_failure_after_content_arrived_is_never_replayed():
    script = Script(StreamCut("the connection closed"), content_first=True)

    with pytest.raises(ModelError) as error:
        await collect(run(script))

    assert str(error.value) == (
        "the connection closed: the response was cut off midway"
        " (not retried, since part of it had already arrived)"
    )
    assert script.attempts == 1


async def test_a_refused_request_is_final_and_keeps_its_status():
    script = Script(APIStatusError("bad", status_code=400, body={"message": "x", "type": "y"}))

    with pytest.raises(ModelError) as error:
        await collect(run(script))

    assert (str(error.value), error.value.status) == ("API Error 400: x", 400)
    assert script.attempts == 1


async def test_giving_up_on_a_server_that_answered_names_no_address():
    script = Script(overloaded(), overloaded())

    with pytest.raises(ModelError) as error:
        await collect(run(script, retries=1))

    assert str(error.value).startswith("API Error 529: Overloaded; gave up after 2 attempts in ")
    assert "Check that" not in str(error.value) and error.value.status == 529


@pytest.mark.parametrize(
    ("failure", "cause", "hint"),
    [
        (ConnectionRefusedError(), "connection refused", ""),
        (httpx.ReadTimeout("timed out"), "no response for 5 s", SLOW),
    ],
)
async def test_giving_up_on_a_server_that_never_answered_says_what_to_check(failure, cause, hint):
    script = Script(failure, failure)

    with pytest.raises(ModelError) as error:
        await collect(run(script, retries=1))

    message = str(error.value)
    assert message.startswith(f"{cause}; gave up after 2 attempts in ")
    assert message.endswith(f". Check that {CHECK}{hint}.")


async def test_an_abort_while_waiting_to_retry_ends_the_stream_quietly():
    abort = AbortSignal()
    script = Script(overloaded())
    events = []

    async for event in run(script, abort=abort, delay_s=30.0):
        events.append(event)
        abort.abort()  # the loop is about to wait up to 30 s: it must wake at once

    assert [type(event) for event in events] == [Retrying]
    assert script.attempts == 1
