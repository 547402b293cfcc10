"""What the engine reports, turned into metrics, events and spans.

`TelemetryRecorder` is the engine's observer (engine/observer.py). Names and
attributes follow Claude Code's, under agentcli's prefix, so a dashboard built
for one needs only the prefix changed (docs/telemetry.md lists them):

- metrics: `agentcli.session.count`, `agentcli.token.usage` (`type`: input,
  output, cacheRead, cacheCreation), `agentcli.cost.usage`, `agentcli.tool_call.count`
  (`tool_name`, `decision`, `source`, `success`), `agentcli.lines_of_code.count`
  (`type`: added, removed), `agentcli.active_time.total` (seconds a turn ran);
- events (log records named by `event.name`): `agentcli.user_prompt`,
  `agentcli.api_request`, `agentcli.api_error`, `agentcli.tool_decision`,
  `agentcli.tool_result`;
- spans: `agentcli.interaction` for each prompt, with an `agentcli.llm_request`
  for each model request and an `agentcli.tool` for each tool call under it
  (a permission decision is an event on its tool's span).

A subagent's requests and calls come in its parent's stream, wrapped
(`SubagentEvent`): they are recorded like the parent's, with `agent_type` set.
What is never recorded: the text of prompts (unless `include_prompts`), file
contents, tool inputs and outputs, the model's text.

Every method catches its own failures: a telemetry problem must never reach a
turn. It is written down once, in the `agentcli.telemetry` logger.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from agentcli.engine.events import (
    ApiRetry,
    AssistantMessage,
    Event,
    RequestStarted,
    SubagentEvent,
    ToolCallFinished,
    ToolCallRunning,
    ToolCallStarted,
    ToolPermissionRequested,
    TurnEnded,
)
from agentcli.tools.display import CreatedDisplay, DiffDisplay

if TYPE_CHECKING:
    from opentelemetry._logs import Logger
    from opentelemetry.metrics import Meter
    from opentelemetry.trace import Span, Tracer

    from agentcli.core.messages import Block
    from agentcli.core.usage import Usage
    from agentcli.permissions.question import PermissionQuestion

log = logging.getLogger("agentcli.telemetry")
P = ParamSpec("P")
R = TypeVar("R")


def _never_raises(method: Callable[P, None]) -> Callable[P, None]:
    @functools.wraps(method)
    def safe(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            method(*args, **kwargs)
        except Exception:
            log.exception("telemetry: %s failed", method.__name__)

    return safe


@dataclass
class _Call:
    """One tool call while it is under way."""

    name: str
    started_ns: int
    agent_type: str | None
    span: Span | None = None
    question: PermissionQuestion | None = None
    decision: tuple[str, str] | None = None  # (accept|reject, source)


@dataclass
class _Stream:
    """One engine's stream in a prompt: the parent's, or one subagent's."""

    request_started_ns: int | None = None
    request_span: Span | None = None
    agent_type: str | None = None


@dataclass
class _Prompt:
    """The prompt being answered in one session."""

    started: float
    span: Span | None
    streams: dict[str, _Stream] = field(default_factory=dict)
    calls: dict[str, _Call] = field(default_factory=dict)


class TelemetryRecorder:
    """Records one process's sessions into the instruments of a meter, a logger and a
    tracer (each None when its signal is not exported)."""

    def __init__(
        self,
        meter: Meter | None,
        logger: Logger | None,
        tracer: Tracer | None,
        *,
        include_prompts: bool = False,
        include_session_id: bool = True,
    ) -> None:
        self._logger = logger
        self._tracer = tracer
        self._include_prompts = include_prompts
        self._include_session_id = include_session_id
        self._prompts: dict[str, _Prompt] = {}
        self._sequence = 0
        # The cost `spent` was told of, by the id of the request's Usage: the answer's
        # event comes right after, and its cost must use the session's own prices.
        self._costs: dict[int, float | None] = {}
        self._instruments = _Instruments(meter) if meter is not None else None

    # -- the engine's observer ------------------------------------------------

    @_never_raises
    def session_started(self, session_id: str) -> None:
        if self._instruments is not None:
            self._instruments.sessions.add(1, self._base(session_id))

    @_never_raises
    def prompt_submitted(self, session_id: str, prompt: str | list[Block]) -> None:
        text = _prompt_text(prompt)
        span = None
        if self._tracer is not None:
            attributes = {**self._base(session_id), "user_prompt_length": len(text)}
            if self._include_prompts:
                attributes["user_prompt"] = text
            span = self._tracer.start_span("agentcli.interaction", attributes=attributes)
        self._prompts[session_id] = _Prompt(started=time.monotonic(), span=span)
        event: dict[str, Any] = {"prompt_length": len(text)}
        if self._include_prompts:
            event["prompt"] = text
        self._event(session_id, "user_prompt", event)

    @_never_raises
    def spent(self, session_id: str, model: str, usage: Usage, cost_usd: float | None) -> None:
        if len(self._costs) > 256:  # answers that never came as events (a compaction's)
            self._costs.clear()
        self._costs[id(usage)] = cost_usd
        if self._instruments is None:
            return
        attributes = {**self._base(session_id), "model": model}
        tokens = self._instruments.tokens
        for kind, count in (
            ("input", usage.input_tokens),
            ("output", usage.output_tokens),
            ("cacheRead", usage.cache_read_input_tokens),
            ("cacheCreation", usage.cache_creation_input_tokens),
        ):
            if count:
                tokens.add(count, {**attributes, "type": kind})
        if cost_usd:
            self._instruments.cost.add(cost_usd, attributes)

    @_never_raises
    def event(self, session_id: str, model: str, event: Event) -> None:
        prompt = self._prompts.get(session_id)
        if prompt is None:  # an event outside a prompt: nothing to tie it to
            return
        self._record(session_id, model, prompt, "", None, event)

    # -- one event --------------------------------------------------------------

    def _record(
        self,
        session_id: str,
        model: str,
        prompt: _Prompt,
        stream_key: str,
        agent_type: str | None,
        event: Event,
    ) -> None:
        stream = prompt.streams.setdefault(stream_key, _Stream(agent_type=agent_type))
        match event:
            case SubagentEvent(parent_tool_use_id=parent, agent_type=inner_type, event=inner):
                self._record(session_id, model, prompt, parent, inner_type, inner)
            case RequestStarted():
                self._request_started(session_id, model, prompt, stream)
            case AssistantMessage():
                self._request_ended(session_id, prompt, stream, event)
            case ApiRetry():
                self._event(
                    session_id,
                    "api_error",
                    {
                        "model": model,
                        "error": event.error,
                        "status_code": event.status if event.status is not None else "undefined",
                        "attempt": event.attempt,
                        "duration_ms": _since_ms(stream.request_started_ns),
                        **_agent(agent_type),
                    },
                )
            case ToolCallStarted(tool_use_id=tool_use_id, name=name):
                self._call_started(session_id, prompt, tool_use_id, name, agent_type)
            case ToolPermissionRequested():
                call = prompt.calls.get(event.tool_use_id)
                if call is not None:
                    call.question = event.question
            case ToolCallRunning(tool_use_id=tool_use_id):
                call = prompt.calls.get(tool_use_id)
                if call is not None:
                    self._decided(session_id, call, accepted=True)
            case ToolCallFinished():
                self._call_finished(session_id, prompt, event)
            case TurnEnded():
                self._turn_ended(session_id, prompt, event)
            case _:
                pass  # text, thinking, progress, notices: nothing to count

    def _request_started(
        self, session_id: str, model: str, prompt: _Prompt, stream: _Stream
    ) -> None:
        stream.request_started_ns = time.time_ns()
        if self._tracer is not None:
            stream.request_span = self._tracer.start_span(
                "agentcli.llm_request",
                context=_inside(prompt.span),
                attributes={**self._base(session_id), "model": model, **_agent(stream.agent_type)},
            )

    def _request_ended(
        self, session_id: str, prompt: _Prompt, stream: _Stream, event: AssistantMessage
    ) -> None:
        usage = event.usage
        cost = self._costs.pop(id(usage), None)
        facts: dict[str, Any] = {
            "model": event.model,
            "duration_ms": _since_ms(stream.request_started_ns),
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_input_tokens,
            "cache_creation_tokens": usage.cache_creation_input_tokens,
            "stop_reason": event.stop_reason or "",
            **_agent(stream.agent_type),
        }
        if cost is not None:
            facts["cost_usd"] = cost
        self._event(session_id, "api_request", facts)
        if stream.request_span is not None:
            stream.request_span.set_attributes({k: v for k, v in facts.items() if k != "model"})
            stream.request_span.end()
        stream.request_started_ns = None
        stream.request_span = None

    def _call_started(
        self, session_id: str, prompt: _Prompt, tool_use_id: str, name: str, agent_type: str | None
    ) -> None:
        call = _Call(name=name, started_ns=time.time_ns(), agent_type=agent_type)
        if self._tracer is not None:
            call.span = self._tracer.start_span(
                "agentcli.tool",
                context=_inside(prompt.span),
                attributes={**self._base(session_id), "tool_name": name, **_agent(agent_type)},
            )
        prompt.calls[tool_use_id] = call

    def _decided(self, session_id: str, call: _Call, *, accepted: bool) -> None:
        """The call's permission decision, once: by the person when asked, else by the
        configuration (rules, the mode, a hook)."""
        if call.decision is not None:
            return
        source = "config"
        if call.question is not None:
            answer = call.question.answered
            if answer is None or answer.interrupt:
                source = "user_abort"
            elif not answer.allow:
                source = "user_reject"
            else:
                source = "user_temporary" if answer.scope == "once" else "user_permanent"
        decision = "accept" if accepted else "reject"
        call.decision = (decision, source)
        facts = {
            "tool_name": call.name,
            "decision": decision,
            "source": source,
            **_agent(call.agent_type),
        }
        self._event(session_id, "tool_decision", facts)
        if call.span is not None:
            call.span.add_event("permission_decision", {"decision": decision, "source": source})

    def _call_finished(self, session_id: str, prompt: _Prompt, event: ToolCallFinished) -> None:
        call = prompt.calls.pop(event.tool_use_id, None)
        if call is None:
            return
        if event.status == "denied":
            self._decided(session_id, call, accepted=False)
        # A call that never ran nor was refused (an unknown tool, bad input, stopped
        # while waiting) had no decision.
        decision, source = call.decision or ("none", "none")
        success = event.status == "done"
        facts: dict[str, Any] = {
            "tool_name": call.name,
            "success": success,
            "status": event.status,
            "duration_ms": _since_ms(call.started_ns),
            "decision": decision,
            "source": source,
            **_agent(call.agent_type),
        }
        self._event(session_id, "tool_result", facts)
        if call.span is not None:
            call.span.set_attributes(
                {"success": success, "status": event.status, "decision": decision, "source": source}
            )
            call.span.end()
        if self._instruments is not None:
            self._instruments.tool_calls.add(
                1,
                {
                    **self._base(session_id),
                    "tool_name": call.name,
                    "decision": decision,
                    "source": source,
                    "success": success,
                },
            )
            if success:
                self._count_lines(session_id, event)

    def _count_lines(self, session_id: str, event: ToolCallFinished) -> None:
        assert self._instruments is not None
        display = event.display
        added, removed = 0, 0
        if isinstance(display, DiffDisplay):
            added, removed = display.added, display.removed
        elif isinstance(display, CreatedDisplay):
            added = display.lines
        for kind, count in (("added", added), ("removed", removed)):
            if count:
                self._instruments.lines.add(count, {**self._base(session_id), "type": kind})

    def _turn_ended(self, session_id: str, prompt: _Prompt, event: TurnEnded) -> None:
        self._prompts.pop(session_id, None)
        seconds = time.monotonic() - prompt.started
        if self._instruments is not None:
            self._instruments.active_time.add(seconds, self._base(session_id))
        for stream in prompt.streams.values():  # a request the turn broke off
            if stream.request_span is not None:
                stream.request_span.end()
        for call in prompt.calls.values():
            if call.span is not None:
                call.span.end()
        if prompt.span is not None:
            prompt.span.set_attributes(
                {
                    "end_reason": str(event.reason),
                    "turns": event.turns,
                    "duration_ms": int(seconds * 1000),
                }
            )
            prompt.span.end()

    # -- shared -------------------------------------------------------------------

    def _base(self, session_id: str) -> dict[str, Any]:
        return {"session.id": session_id} if self._include_session_id else {}

    def _event(self, session_id: str, name: str, facts: Mapping[str, Any]) -> None:
        if self._logger is None:
            return
        self._sequence += 1
        attributes = {
            **self._base(session_id),
            "event.name": name,
            "event.timestamp": _iso_now(),
            "event.sequence": self._sequence,
            **facts,
        }
        self._logger.emit(
            event_name=f"agentcli.{name}", body=f"agentcli.{name}", attributes=attributes
        )


class _Instruments:
    """The metrics, made once per meter."""

    def __init__(self, meter: Meter) -> None:
        self.sessions = meter.create_counter(
            "agentcli.session.count", unit="1", description="Sessions started"
        )
        self.tokens = meter.create_counter(
            "agentcli.token.usage", unit="tokens", description="Tokens used, by type and model"
        )
        self.cost = meter.create_counter(
            "agentcli.cost.usage", unit="USD", description="Cost of the model requests, by model"
        )
        self.tool_calls = meter.create_counter(
            "agentcli.tool_call.count", unit="1", description="Tool calls, by tool and decision"
        )
        self.lines = meter.create_counter(
            "agentcli.lines_of_code.count", unit="1", description="Lines added and removed"
        )
        self.active_time = meter.create_counter(
            "agentcli.active_time.total", unit="s", description="Time the agent spent on prompts"
        )


def _prompt_text(prompt: str | list[Block]) -> str:
    if isinstance(prompt, str):
        return prompt
    return "".join(str(block.get("text", "")) for block in prompt if block.get("type") == "text")


def _agent(agent_type: str | None) -> dict[str, str]:
    return {"agent_type": agent_type} if agent_type else {}


def _since_ms(start_ns: int | None) -> int:
    return 0 if start_ns is None else max(0, (time.time_ns() - start_ns) // 1_000_000)


def _iso_now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _inside(span: Span | None) -> Any:
    """The context that makes a new span a child of `span`."""
    if span is None:
        return None
    from opentelemetry import trace

    return trace.set_span_in_context(span)
