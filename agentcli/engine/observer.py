"""What an engine tells an outside observer of its sessions (telemetry, today).

The engine calls an `EngineObserver`, when the composition root gave it one
(`EngineParts.observer`), at four moments: a session begins (a new engine, a
`/clear`), the person's prompt is accepted, an event of a turn is yielded, and
a model request's tokens are counted (`QueryEngine.account`: the turn's own
requests, a compaction's summary, a subagent's). Tokens are reported there,
not from the events, because that is the one place every request's spending
passes: a compaction's request yields no event, and a subagent's answers come
wrapped in `SubagentEvent`.

The observer must not slow a turn down or stop it: it is called inline, so it
records and returns, and its own failures stay inside it. A subagent's engine
has no observer of its own: its events reach the parent's (wrapped), and its
tokens are counted by the parent's `account`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agentcli.core.messages import Block
    from agentcli.core.usage import Usage
    from agentcli.engine.events import Event


class EngineObserver(Protocol):
    """Hears of a session's life; never raises, never waits."""

    def session_started(self, session_id: str) -> None:
        """A session begins (a new one or a resumed one, in this process)."""

    def prompt_submitted(self, session_id: str, prompt: str | list[Block]) -> None:
        """The person's prompt was accepted and the turn begins."""

    def event(self, session_id: str, model: str, event: Event) -> None:
        """An event of the turn, in the stream's order (`model`: the session's)."""

    def spent(self, session_id: str, model: str, usage: Usage, cost_usd: float | None) -> None:
        """A model request's tokens and cost (None: the model has no prices)."""
