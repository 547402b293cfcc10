"""The driver answers each permission question exactly once, and stops a tool it abandons.

A real engine (the composition root's `assemble`, a scripted model) runs a
fake tool that needs the person's yes. Whatever the front end's `answer` does
(answers, never answers until the turn stops, raises, is cancelled by someone
else), the question ends and the turn ends with a conversation the API
accepts: the next turn's request passes the API's rules (the scripted provider
checks every request).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import text_of
from agentcli.engine.events import (
    EndReason,
    Event,
    Notice,
    ToolCallFinished,
    ToolCallProgress,
    ToolPermissionRequested,
)
from agentcli.engine.query_engine import QueryEngine
from agentcli.frontends.driver import TurnTally, drive
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer
from agentcli.permissions.types import PermissionMode
from tests.engine.harness import make_engine
from tests.engine.scripted import Probe, Response, ScriptedProvider, make_tool, text, tool_use

Answer = Callable[[PermissionQuestion], Awaitable[PermissionAnswer]]
LIMIT_S = 30  # a question left hanging fails here instead of at pytest's timeout


class Front:
    """Shows into a list; answers with `answer`; records the questions it was asked."""

    def __init__(self, answer: Answer, *, raise_on: type | None = None) -> None:
        self._answer = answer
        self.raise_on = raise_on
        self.shown: list[Event] = []
        self.asked: list[PermissionQuestion] = []

    async def show(self, event: Event) -> None:
        self.shown.append(event)
        if self.raise_on is not None and isinstance(event, self.raise_on):
            raise ValueError("the front end broke")

    async def answer(self, question: PermissionQuestion) -> PermissionAnswer:
        self.asked.append(question)
        return await self._answer(question)


async def allow(question: PermissionQuestion) -> PermissionAnswer:
    return PermissionAnswer(allow=True)


async def refuse(question: PermissionQuestion) -> PermissionAnswer:
    return PermissionAnswer(allow=False, feedback="not now")


def engine_with(
    tmp_path: Path, *script: Response, behaviour: str = "ok"
) -> tuple[QueryEngine, Probe]:
    probe = Probe()
    tool = make_tool("act", probe, safe=False, behaviour=behaviour)
    engine = make_engine(ScriptedProvider(*script), [tool], tmp_path, mode=PermissionMode.DEFAULT)
    return engine, probe


def one_call(*values: str) -> Response:
    return Response([text("Acting."), *(tool_use("act", {"value": v}) for v in values)])


async def turn(engine: QueryEngine, front: Front, **kw: object) -> TurnTally:
    return await asyncio.wait_for(drive(engine, "go", front, **kw), LIMIT_S)  # type: ignore[arg-type]


async def next_turn_is_valid(engine: QueryEngine) -> None:
    """The conversation the turn left is one the API takes: a next turn gets its answer."""
    tally = await turn(engine, Front(refuse))
    provider = engine.provider
    assert isinstance(provider, ScriptedProvider)
    assert provider.invalid == []
    assert tally.reason is EndReason.COMPLETED, tally


def finished(front: Front) -> list[ToolCallFinished]:
    return [e for e in front.shown if isinstance(e, ToolCallFinished)]


async def test_each_question_is_asked_once_and_its_answer_goes_to_the_engine(tmp_path):
    engine, probe = engine_with(
        tmp_path, one_call("a", "b"), Response([text("Done.")]), Response([text("Again.")])
    )
    front = Front(allow)
    tally = await turn(engine, front)
    questions = [e.question for e in front.shown if isinstance(e, ToolPermissionRequested)]
    assert len(questions) == 2 and front.asked == questions  # each once, in order
    assert all(not q.is_open for q in questions)
    assert [e.status for e in finished(front)] == ["done", "done"]
    assert probe.order == ["start:act:a", "end:act:a", "start:act:b", "end:act:b"]
    assert (tally.reason, tally.turns, tally.last_text) == (EndReason.COMPLETED, 2, "Done.")
    await next_turn_is_valid(engine)


async def test_a_refusal_is_tallied_as_a_denial(tmp_path):
    engine, probe = engine_with(tmp_path, one_call("a"), Response([text("Fine.")]))
    front = Front(refuse)
    tally = await turn(engine, front)
    [call] = finished(front)
    assert call.status == "denied" and probe.order == []
    assert tally.permission_denials == [
        {"tool_name": "act", "tool_use_id": call.tool_use_id, "tool_input": {"value": "a"}}
    ]
    assert tally.reason is EndReason.COMPLETED


async def test_a_turn_stopped_while_the_front_end_asks_withdraws_the_question(tmp_path):
    engine, probe = engine_with(tmp_path, one_call("a"), Response([text("Again.")]))
    abort = AbortSignal()
    asking = asyncio.Event()
    cancelled: list[bool] = []

    async def never(question: PermissionQuestion) -> PermissionAnswer:
        asking.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)  # the SDK withdraws its can_use_tool here
            raise
        raise AssertionError("unreachable")

    front = Front(never)
    running = asyncio.create_task(turn(engine, front, abort=abort))
    await asking.wait()
    abort.abort("cancelled by the client")
    tally = await running
    assert cancelled == [True]
    assert not front.asked[0].is_open
    assert tally.stopped == "cancelled by the client"
    assert tally.reason is EndReason.ABORTED_TOOLS
    assert [e.status for e in finished(front)] == ["interrupted"] and probe.order == []
    assert tally.unanswered == []  # withdrawn is not a failure
    await next_turn_is_valid(engine)


@pytest.mark.parametrize("how", ["raises", "is cancelled by another"])
async def test_an_answer_that_fails_stops_the_turn_cleanly_and_says_so(tmp_path, how):
    engine, probe = engine_with(tmp_path, one_call("a", "b"), Response([text("Again.")]))
    lost: asyncio.Future[PermissionAnswer] = asyncio.get_running_loop().create_future()

    async def failing(question: PermissionQuestion) -> PermissionAnswer:
        if how == "raises":
            raise KeyError("no such client")
        asyncio.get_running_loop().call_soon(lost.cancel)  # e.g. its connection closing
        return await lost

    front = Front(failing)
    tally = await turn(engine, front)
    assert len(front.asked) == 1  # the turn stopped at the first question
    assert not front.asked[0].is_open
    assert tally.reason is EndReason.ABORTED_TOOLS
    assert [e.status for e in finished(front)] == ["interrupted", "interrupted"]
    assert probe.order == []
    [problem] = tally.unanswered
    cause = "KeyError: 'no such client'" if how == "raises" else "the answer was cancelled"
    assert problem == (
        f"The permission question for act could not be answered ({cause}); the turn was stopped."
    )
    notices = [e for e in front.shown if isinstance(e, Notice) and e.level == "error"]
    assert notices == [Notice(problem, "error")]
    shown_at = front.shown.index(notices[0])
    assert shown_at < front.shown.index(finished(front)[0])  # before what it caused
    await next_turn_is_valid(engine)


async def test_a_front_end_that_raises_mid_call_stops_the_tool_before_the_error_comes_out(
    tmp_path,
):
    engine, probe = engine_with(
        tmp_path, one_call("a"), Response([text("Again.")]), behaviour="wait"
    )
    front = Front(allow, raise_on=ToolCallProgress)  # the tool is running and reported
    with pytest.raises(ValueError, match="the front end broke"):
        await turn(engine, front)
    assert probe.order == ["start:act:a", "end:act:a"] and probe.running == 0
    assert not engine.busy
    last = engine.messages[-1]
    assert last["role"] == "user" and last["content"][0]["type"] == "tool_result"
    assert "[Request interrupted by user]" in text_of(last)
    await next_turn_is_valid(engine)


async def test_a_driver_cancelled_mid_call_stops_the_tool_before_it_ends(tmp_path):
    engine, probe = engine_with(
        tmp_path, one_call("a"), Response([text("Again.")]), behaviour="wait"
    )
    showing = asyncio.Event()

    class Stuck(Front):
        async def show(self, event: Event) -> None:
            await super().show(event)
            if isinstance(event, ToolCallProgress):  # the app quits while it draws this
                showing.set()
                await asyncio.Event().wait()

    running = asyncio.create_task(turn(engine, Stuck(allow)))
    await showing.wait()
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert probe.order == ["start:act:a", "end:act:a"] and probe.running == 0
    assert not engine.busy
    await next_turn_is_valid(engine)
