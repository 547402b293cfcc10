"""What one turn came to, kept the same way for every front end.

Each front end reports a turn's end in its own words (the SDK's and `-p`'s
result object, ACP's stop reason, the TUI's status line), from the same facts:
why the loop stopped (`EndReason`, its error), how many requests it made and
what they used, what the model said last and why it stopped, the calls that
were refused, the `--json-schema` answer, the time spent waiting on the
model, the session's cost after the turn, and whether the turn's abort signal
fired (Esc, a signal, a closed stdout, a client's cancel). The driver
(turn.py) feeds every event to `observe` and fills in the rest when the
stream is closed. What a front end adds of its own (an SDK budget's end, the
session's totals `-p` reports) stays in the front end.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from agentcli.core.messages import text_of
from agentcli.core.usage import Usage
from agentcli.engine.events import (
    AssistantMessage,
    EndReason,
    Event,
    RequestStarted,
    ToolCallFinished,
    ToolCallStarted,
    TurnEnded,
)


@dataclass
class TurnTally:
    """The facts of one turn. `reason` stays None when the stream broke off before its
    `TurnEnded` (the front end raised, the driver was cancelled)."""

    reason: EndReason | None = None
    error: str | None = None
    turns: int = 0  # model requests the loop made (TurnEnded.turns)
    usage: Usage = field(default_factory=Usage)  # the loop's, for this turn
    last_text: str = ""  # the text of the last assistant message that had some
    stop_reason: str | None = None  # the model's, of its last message (end_turn, tool_use...)
    duration_api_ms: int = 0  # time spent waiting on model requests
    duration_ms: int = 0  # the whole turn, as the driver saw it
    permission_denials: list[dict[str, Any]] = field(default_factory=list)
    structured_output: Any = None  # --json-schema: the last StructuredOutput call that matched
    cost_usd: float | None = 0.0  # the session's after the turn (None: a model without prices)
    stopped: str | None = None  # why the turn's abort signal fired (None: it did not)
    # Questions the front end failed to answer (its answer raised): each stopped the turn,
    # as Esc at a question does (so `stopped` is set too; look here first).
    unanswered: list[str] = field(default_factory=list)
    _inputs: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict, repr=False)
    _request_started: float | None = field(default=None, repr=False)

    def observe(self, event: Event) -> None:
        """Take what a front end reports from one event of the turn."""
        match event:
            case RequestStarted():
                self._request_started = time.monotonic()
            case AssistantMessage(message=message, stop_reason=stop_reason):
                self._stop_clock()
                text = text_of(message)
                if text:
                    self.last_text = text
                self.stop_reason = stop_reason
            case ToolCallStarted(tool_use_id=tool_use_id, name=name, input=tool_input):
                self._inputs[tool_use_id] = (name, tool_input)
            case ToolCallFinished(tool_use_id=tool_use_id, name="StructuredOutput", status="done"):
                self.structured_output = self._inputs.get(tool_use_id, ("", None))[1]
            case ToolCallFinished(tool_use_id=tool_use_id, status="denied"):
                name, tool_input = self._inputs.get(tool_use_id, (event.name, {}))
                self.permission_denials.append(
                    {"tool_name": name, "tool_use_id": tool_use_id, "tool_input": tool_input}
                )
            case TurnEnded(reason=reason, error=error):
                self._stop_clock()
                self.reason = reason
                self.error = error
                self.turns = event.turns
                self.usage = event.usage

    def _stop_clock(self) -> None:
        if self._request_started is not None:
            self.duration_api_ms += int((time.monotonic() - self._request_started) * 1000)
            self._request_started = None
