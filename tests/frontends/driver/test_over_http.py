"""The driver with the whole engine against the fake Messages API and the real Bash tool.

Every request the fake server receives is validated as the real API would, so
"the conversation a stopped turn leaves is valid" is checked on the wire: the
next turn's request must be accepted. What each test stops the turn with is a
way a front end can fail or leave: its answer raising, the person stopping a
turn that waits on a question, the front end raising (or its task being
cancelled) while a real command runs, whose process must be gone, not left
running, by the time `drive()` gives the error back.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from agentcli.core.abort import AbortSignal
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
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.tools.bash import BashTool
from tests.engine.harness import make_engine
from tests.fakeapi import reply, text, tool_use

LIMIT_S = 60  # a turn left hanging fails here, not at pytest's timeout
PID_THEN_WAIT = "echo $$; exec sleep 600"  # the shell becomes the long command: one pid


@pytest.fixture
async def engine(fake_api, tmp_path: Path):
    provider = AnthropicProvider(
        api_key="test-key",
        base_url=fake_api.base_url,
        retry=RetryPolicy(max_retries=0, base_delay_s=0.0),
    )
    yield make_engine(
        provider,
        [BashTool(kill_grace=0.5)],
        tmp_path,
        mode=PermissionMode.DEFAULT,
        model="claude-sonnet-5-5",
        system=[{"type": "text", "text": "You are a test agent."}],
    )
    await provider.aclose()


class Front:
    """Shows into a list; answers with `answer_with`; may raise at a kind of event."""

    def __init__(self, answer_with, *, raise_on: type | None = None) -> None:
        self.answer_with = answer_with
        self.raise_on = raise_on
        self.shown: list[Event] = []

    async def show(self, event: Event) -> None:
        self.shown.append(event)
        if self.raise_on is not None and isinstance(event, self.raise_on):
            raise ValueError("the front end broke")

    async def answer(self, question: PermissionQuestion) -> PermissionAnswer:
        return await self.answer_with(question)


async def allow(question: PermissionQuestion) -> PermissionAnswer:
    return PermissionAnswer(allow=True)


async def turn(engine: QueryEngine, front: Front, **kw) -> TurnTally:
    return await asyncio.wait_for(drive(engine, "go", front, **kw), LIMIT_S)


async def the_next_turn_is_accepted(engine: QueryEngine, fake_api) -> None:
    fake_api.enqueue(reply(text("Next.")))
    tally = await turn(engine, Front(allow))
    assert (tally.reason, tally.last_text) == (EndReason.COMPLETED, "Next.")
    rejected = [(r.status, r.error) for r in fake_api.requests if r.status == 400]
    assert rejected == []


def statuses(front: Front) -> list[str]:
    return [e.status for e in front.shown if isinstance(e, ToolCallFinished)]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def command_pid(front: Front) -> int:
    [first, *_] = [e for e in front.shown if isinstance(e, ToolCallProgress)]
    return int(first.data.text.split()[0])


async def test_an_answer_that_raises_stops_the_turn_and_the_api_takes_the_next(engine, fake_api):
    fake_api.enqueue(reply(text("Running."), tool_use("Bash", {"command": "touch made"})))

    async def broken(question: PermissionQuestion) -> PermissionAnswer:
        raise ConnectionResetError("the client went away")

    front = Front(broken)
    tally = await turn(engine, front)
    assert tally.reason is EndReason.ABORTED_TOOLS and statuses(front) == ["interrupted"]
    assert not (engine.workspace.root / "made").exists()
    [problem] = tally.unanswered
    assert "Bash could not be answered (ConnectionResetError: the client went away)" in problem
    assert Notice(problem, "error") in front.shown
    assert len(fake_api.requests) == 1  # the model was not asked to go on
    await the_next_turn_is_accepted(engine, fake_api)


async def test_a_turn_stopped_at_its_question_withdraws_it(engine, fake_api):
    fake_api.enqueue(reply(tool_use("Bash", {"command": "touch made"})))
    abort = AbortSignal()
    asked: list[PermissionQuestion] = []

    async def stop_instead(question: PermissionQuestion) -> PermissionAnswer:
        asked.append(question)
        abort.abort("interrupted by user")  # Esc at the question
        await asyncio.Event().wait()
        raise AssertionError("the question was not withdrawn")

    front = Front(stop_instead)
    tally = await turn(engine, front, abort=abort)
    assert tally.stopped == "interrupted by user" and tally.unanswered == []
    assert [q.is_open for q in asked] == [False]
    assert statuses(front) == ["interrupted"]
    assert not (engine.workspace.root / "made").exists()
    await the_next_turn_is_accepted(engine, fake_api)


async def test_a_front_end_that_raises_while_a_command_runs_kills_it_first(engine, fake_api):
    fake_api.enqueue(reply(tool_use("Bash", {"command": PID_THEN_WAIT})))
    front = Front(allow, raise_on=ToolCallProgress)
    with pytest.raises(ValueError, match="the front end broke"):
        await turn(engine, front)
    assert gone(command_pid(front))
    assert not engine.busy
    await the_next_turn_is_accepted(engine, fake_api)


async def test_a_driver_cancelled_while_it_shows_a_command_kills_the_command_first(
    engine, fake_api
):
    fake_api.enqueue(reply(tool_use("Bash", {"command": PID_THEN_WAIT})))
    drawing = asyncio.Event()

    class Stuck(Front):
        async def show(self, event: Event) -> None:
            await super().show(event)
            if isinstance(event, ToolCallProgress):  # the app quits while it draws this
                drawing.set()
                await asyncio.Event().wait()

    front = Stuck(allow)
    running = asyncio.create_task(turn(engine, front))
    await asyncio.wait_for(drawing.wait(), LIMIT_S)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert gone(command_pid(front))
    assert not engine.busy
    await the_next_turn_is_accepted(engine, fake_api)


async def test_each_question_is_shown_once_and_answered_once(engine, fake_api):
    fake_api.enqueue(
        reply(
            tool_use("Bash", {"command": "echo one > one"}),
            tool_use("Bash", {"command": "echo two > two"}),
        )
    )
    fake_api.enqueue(reply(text("Both.")))
    answered: list[str] = []

    async def count(question: PermissionQuestion) -> PermissionAnswer:
        answered.append(question.request.tool_use_id)
        return PermissionAnswer(allow=True)

    front = Front(count)
    tally = await turn(engine, front)
    shown = [
        e.question.request.tool_use_id
        for e in front.shown
        if isinstance(e, ToolPermissionRequested)
    ]
    assert len(shown) == 2 and answered == shown
    assert statuses(front) == ["done", "done"] and tally.last_text == "Both."
    root = engine.workspace.root
    assert (root / "one").read_text() == "one\n" and (root / "two").read_text() == "two\n"
