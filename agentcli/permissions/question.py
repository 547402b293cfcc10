"""A permission question, and the one way it travels: on the engine's event stream.

When a call needs the person's yes, the tool runner (engine/orchestration.py)
takes its one lock (one question at a time), has the gate build a
`PermissionQuestion`, fires the Notification hook, and yields
`ToolPermissionRequested(question)` like any other event. It then awaits the
answer and hands it to the gate to apply (session or always rules, leaving
plan mode, an interrupt). Every front end answers by handling that event:
the TUI shows a prompt that calls `question.answer(...)` when a key is
pressed (the event stream never waits for the person); headless answers at
once with the refusal; an SDK or ACP front end sends `question.request`
(it dumps to JSON) to its client and answers with what comes back.

Why not a callback the engine calls, as before: that made two channels (the
question by callback, the "waiting" state on the stream), each with its own
lock, and every front end had to hand the engine a function at build time.
Here a front end needs nothing but the events, what is asked is plain data,
and the engine alone decides when a question ends: when the turn is stopped
(Esc, a signal, the consumer going away) the wait is cancelled, the question
is withdrawn, and `on_close` tells the front end to take its prompt down.

A front end must answer each question it is given, or the turn waits for it.
The first answer counts; a later one, or one to a withdrawn question, is ignored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from agentcli.config.rules import Rule

if TYPE_CHECKING:
    from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest


class PermissionQuestion:
    """One question and its one answer. `request` is what the front end shows;
    `rules` are what a "session" or "always" answer adds (`request.rules` is their text).
    A subagent's question names it in `request.asked_by`."""

    def __init__(self, request: PermissionRequest, rules: Sequence[Rule] = ()) -> None:
        self.request = request
        self.rules = tuple(rules)
        self._reply: asyncio.Future[PermissionAnswer] = asyncio.get_running_loop().create_future()

    @property
    def is_open(self) -> bool:
        """Neither answered nor withdrawn yet."""
        return not self._reply.done()

    @property
    def answered(self) -> PermissionAnswer | None:
        """The answer it got, or None: not answered yet, or withdrawn."""
        if self._reply.done() and not self._reply.cancelled():
            return self._reply.result()
        return None

    def answer(self, answer: PermissionAnswer) -> None:
        """The front end's side: give the person's answer (once; later ones are ignored)."""
        if not self._reply.done():
            self._reply.set_result(answer)

    def on_close(self, callback: Callable[[], object]) -> None:
        """Call `callback` once the question is answered or withdrawn (soon after, if
        it already is): where a front end takes its prompt down."""
        self._reply.add_done_callback(lambda _reply: callback())

    async def reply(self) -> PermissionAnswer:
        """The engine's side: wait for the answer. Cancelling the wait withdraws the question."""
        try:
            return await self._reply
        finally:
            self._reply.cancel()  # nothing happens when it was answered
