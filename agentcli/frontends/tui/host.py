"""The part of Textual's App that every helper's Protocol shares, in Textual's types.

Each helper of the app (startup, sessions, turns, prompt_flow, ending) says
in a Protocol of its own what it needs of the app, and gets no more. Running
a worker is what all of them need; it is said once here, in the signature
Textual gives it, so the App satisfies each Protocol as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from textual.worker import Worker, WorkType

ResultType = TypeVar("ResultType")


class RunsWorkers(Protocol):
    def run_worker(
        self,
        work: WorkType[ResultType],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[ResultType]: ...
