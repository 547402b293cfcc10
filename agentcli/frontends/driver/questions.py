"""Each permission question of a turn answered exactly once, whatever the front end does.

The engine yields `ToolPermissionRequested(question)` and waits for the answer;
the events go on meanwhile (another call's output, a subagent's progress), so
the answer is sought in a task of its own: the front end's `answer(question)`
(headless refuses at once, the SDK asks the program, ACP asks the editor, the
TUI waits for the person at its prompt). What can happen to that task, and what
the question gets:

- the front end answers: that answer (the first one counts);
- the engine withdraws the question first (the turn was stopped: Esc, a
  signal, a closed stdout, the stream closed): the task is cancelled, so the
  front end stops asking (the SDK withdraws its `can_use_tool`, ACP its request);
- the front end's answer raises, or its task is cancelled by anyone but us: the
  question is refused with an interrupt, which stops the turn as Esc at the
  question does (the transcript keeps its interrupted marker), and the problem
  is kept for the driver to show as an error notice. Refusing without the
  interrupt would let the model go on asking a front end that cannot answer.

A question is never left open: every path above ends it, and `close()` at the
end of the turn ends whatever is still pending.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from agentcli.permissions.question import PermissionQuestion

if TYPE_CHECKING:
    from agentcli.permissions.question_models import PermissionAnswer

TURN_OVER = "The turn ended before the question was answered."

Answer = Callable[[PermissionQuestion], Awaitable["PermissionAnswer"]]


class Questions:
    """The open questions of one turn, and the problems met answering them."""

    def __init__(self, answer: Answer) -> None:
        self._answer = answer
        self._open: dict[asyncio.Task[None], PermissionQuestion] = {}
        self._closing = False
        self._problems: list[str] = []  # not yet shown
        self.unanswered: list[str] = []  # every problem of the turn

    def ask(self, question: PermissionQuestion) -> None:
        """Seek the answer to `question` without holding up the events."""
        task = asyncio.create_task(self._answered(question))
        self._open[task] = question
        task.add_done_callback(self._done)
        question.on_close(task.cancel)  # answered or withdrawn: stop asking

    def _done(self, task: asyncio.Task[None]) -> None:
        self._open.pop(task, None)

    def take_problems(self) -> list[str]:
        """The problems not yet shown, once each."""
        problems, self._problems = self._problems, []
        return problems

    async def close(self) -> None:
        """The turn is over (its stream closed, so the engine has withdrawn what it
        waited for): stop asking, and end any question still open, refused."""
        self._closing = True
        pending = dict(self._open)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for question in pending.values():
            from agentcli.permissions.question_models import PermissionAnswer

            question.answer(PermissionAnswer(allow=False, feedback=TURN_OVER, interrupt=True))

    async def _answered(self, question: PermissionQuestion) -> None:
        try:
            answer = await self._answer(question)
        except asyncio.CancelledError:
            if question.is_open and not self._closing:  # not ours: the question would hang
                self._refuse(question, "the answer was cancelled")
            raise
        except Exception as exc:  # a front end's bug must not leave the turn waiting
            self._refuse(question, f"{type(exc).__name__}: {exc}")
            return
        question.answer(answer)

    def _refuse(self, question: PermissionQuestion, cause: str) -> None:
        tool = question.request.tool_name
        problem = (
            f"The permission question for {tool} could not be answered ({cause}); "
            "the turn was stopped."
        )
        self._problems.append(problem)
        from agentcli.permissions.question_models import PermissionAnswer

        self.unanswered.append(problem)
        question.answer(PermissionAnswer(allow=False, feedback=problem, interrupt=True))
