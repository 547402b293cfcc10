"""One turn, driven the same way by every front end: `drive(engine, content, front)`.

The TUI, `-p`, the Agent SDK's front end and ACP each run a turn by reading
the engine's event stream to its end. What they must all get right lives
here, once:

- **The stream is closed on every way out** (`aclosing`): the turn's end, the
  front end raising, the driver's task cancelled (the app quitting, a client
  gone), an abort (Esc, a signal, a closed stdout: the abort signal is the
  front end's, passed in). Closing it stops the tools still running (a Bash
  command's process group is killed) and lets the engine repair the
  conversation (a result for every call, the `[Request interrupted by user]`
  marker) before `drive()` returns or raises, so the next turn, or the next
  front end to open the transcript, finds a valid conversation.
- **Each permission question is answered exactly once** (questions.py): by the
  front end's `answer`, or refused with an interrupt when that raises, or
  withdrawn when the turn stops first; never left waiting.
- **The tally** (tally.py): the facts each front end reports at the end.

What differs stays with the front end, behind the `FrontEnd` Protocol: what it
shows of each event (`show`: stream-json lines, ACP updates, the TUI's
conversation) and how it answers a question (`answer`). A front end's own
bookkeeping (the SDK's budget, ACP's mode updates, the TUI's status line)
happens in its `show`, which sees every event in order, the question
included. The message's content is made before the turn (the TUI's
attachments, a custom command's `!` lines) and a queued message waits for
`drive()` to return: both are the front end's.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Protocol

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import Block
from agentcli.engine.events import Event, Notice, ToolPermissionRequested
from agentcli.frontends.driver.questions import Questions
from agentcli.frontends.driver.tally import TurnTally
from agentcli.permissions.question import PermissionQuestion

if TYPE_CHECKING:
    from agentcli.permissions.question_models import PermissionAnswer


class FrontEnd(Protocol):
    """What a front end supplies to drive a turn."""

    async def show(self, event: Event) -> None:
        """Show one event. Called for every event, in the stream's order, the question
        (`ToolPermissionRequested`) included, and for the driver's own error notices;
        the stream waits for it, so it must not wait for a person."""

    async def answer(self, question: PermissionQuestion) -> PermissionAnswer:
        """The answer to one question: at once (headless refuses), or when the person
        or the program gives it. Runs in a task of its own while the events go on, and
        is cancelled when the question is withdrawn (the turn stopped)."""
        ...


class TurnEngine(Protocol):
    """What the driver needs of the engine: `QueryEngine` has it."""

    @property
    def cost_usd(self) -> float | None: ...

    def submit_message(
        self,
        prompt: str | list[Block],
        *,
        abort: AbortSignal | None = None,
        prompt_id: str | None = None,
    ) -> AsyncGenerator[Event, None]: ...


async def drive(
    engine: TurnEngine,
    content: str | list[Block],
    front: FrontEnd,
    *,
    abort: AbortSignal | None = None,
    prompt_id: str | None = None,
) -> TurnTally:
    """Run one turn of `content` to its end, showing each event with `front`, and
    return its tally. `abort` stops the turn (`engine.interrupt()` does the same);
    `prompt_id`: the id the prompt is known by (the engine makes one by default).

    Whatever `front` raises is raised here, after the stream is closed and every
    question ended; a question `front` fails to answer stops the turn, and the
    problem is shown as an error `Notice` and kept in `tally.unanswered`."""
    abort = abort or AbortSignal()
    tally = TurnTally()
    questions = Questions(front.answer)
    started = time.monotonic()
    try:
        stream = engine.submit_message(content, abort=abort, prompt_id=prompt_id)
        async with aclosing(stream) as events:
            async for event in events:
                tally.observe(event)
                if isinstance(event, ToolPermissionRequested):
                    questions.ask(event.question)
                for problem in questions.take_problems():  # before what it caused
                    await front.show(Notice(problem, "error"))
                await front.show(event)
    finally:
        await questions.close()
        tally.unanswered = questions.unanswered
        tally.cost_usd = engine.cost_usd
        tally.stopped = abort.reason if abort.aborted else None
        tally.duration_ms = int((time.monotonic() - started) * 1000)
    for problem in questions.take_problems():
        await front.show(Notice(problem, "error"))
    return tally
