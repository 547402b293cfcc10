"""The driver closes the engine's event stream on every way out of a turn.

An engine stub whose stream records when it is closed: whether the turn ends,
the front end raises, the driver's task is cancelled while the front end shows
an event, or the stream itself fails, the stream's own clean-up (in the real
engine: stopping the tools, the transcript's interrupted marker) has run by the
time `drive()` returns or raises. A loop without `aclosing` leaves it for the
garbage collector's finalizer, which runs it later, if at all before exit.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import Block
from agentcli.core.usage import Usage
from agentcli.engine.events import EndReason, Event, TextDelta, TurnEnded
from agentcli.frontends.driver import TurnTally, drive
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer


class RecordingEngine:
    """Yields `events`; then waits (`hang`) or fails (`fail`); records its close."""

    def __init__(self, events: list[Event], *, hang: bool = False, fail: bool = False) -> None:
        self.events = events
        self.hang = hang
        self.fail = fail
        self.cost_usd: float | None = 0.25
        self.closed = False
        self.closed_by_exit = False  # GeneratorExit: closed while suspended at a yield
        self.prompts: list[str | list[Block]] = []

    async def submit_message(
        self,
        prompt: str | list[Block],
        *,
        abort: AbortSignal | None = None,
        prompt_id: str | None = None,
    ) -> AsyncGenerator[Event, None]:
        self.prompts.append(prompt)
        try:
            for event in self.events:
                yield event
            if self.fail:
                raise RuntimeError("the stream broke")
            if self.hang:
                await asyncio.Event().wait()
        except GeneratorExit:
            self.closed_by_exit = True
            raise
        finally:
            self.closed = True


class Shows:
    """A front end that shows into a list; raises or blocks at the event `at`."""

    def __init__(self, *, raise_at: int | None = None, block_at: int | None = None) -> None:
        self.shown: list[Event] = []
        self.raise_at = raise_at
        self.block_at = block_at
        self.blocked = asyncio.Event()
        self.showing = asyncio.Event()  # something was shown

    async def show(self, event: Event) -> None:
        self.shown.append(event)
        self.showing.set()
        if len(self.shown) == self.raise_at:
            raise ValueError("the front end failed to show it")
        if len(self.shown) == self.block_at:
            self.blocked.set()
            await asyncio.Event().wait()

    async def answer(self, question: PermissionQuestion) -> PermissionAnswer:
        return PermissionAnswer(allow=False)


def some_events() -> list[Event]:
    return [TextDelta("one"), TextDelta("two"), TurnEnded(EndReason.COMPLETED, 1, Usage(3, 4))]


async def test_a_turn_that_ends_is_closed_and_tallied():
    engine = RecordingEngine(some_events())
    front = Shows()
    tally = await drive(engine, "hi", front)
    assert engine.closed
    assert engine.prompts == ["hi"]
    assert front.shown == some_events()
    assert isinstance(tally, TurnTally)
    assert (tally.reason, tally.turns, tally.usage, tally.cost_usd) == (
        EndReason.COMPLETED,
        1,
        Usage(3, 4),
        0.25,
    )
    assert tally.stopped is None


async def test_a_front_end_that_raises_closes_the_stream_before_the_error_comes_out():
    engine = RecordingEngine(some_events(), hang=True)
    with pytest.raises(ValueError, match="failed to show"):
        await drive(engine, "hi", Shows(raise_at=2))
    assert engine.closed_by_exit  # closed by the driver, at the yield it stopped at


async def test_a_driver_cancelled_while_the_front_end_shows_closes_the_stream():
    engine = RecordingEngine(some_events(), hang=True)
    front = Shows(block_at=1)
    turn = asyncio.create_task(drive(engine, "hi", front))
    await front.blocked.wait()
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert engine.closed_by_exit


async def test_a_driver_cancelled_while_the_stream_waits_closes_it():
    engine = RecordingEngine([TextDelta("one")], hang=True)
    front = Shows()
    turn = asyncio.create_task(drive(engine, "hi", front))
    await front.showing.wait()
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert engine.closed


async def test_a_stream_that_fails_is_closed_and_its_error_comes_out():
    engine = RecordingEngine([TextDelta("one")], fail=True)
    with pytest.raises(RuntimeError, match="the stream broke"):
        await drive(engine, "hi", Shows())
    assert engine.closed


async def test_the_abort_signal_given_is_the_turns_and_the_tally_says_it_fired():
    abort = AbortSignal()
    abort.abort("stdout was closed")
    engine = RecordingEngine([TurnEnded(EndReason.ABORTED_STREAMING, 0)])
    tally = await drive(engine, "hi", Shows(), abort=abort)
    assert tally.stopped == "stdout was closed"
    assert tally.reason is EndReason.ABORTED_STREAMING
