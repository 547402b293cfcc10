"""The recorder in process, on the SDK's in-memory exporters: what a person's answer,
a subagent and a broken exporter come to."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentcli.core.usage import Usage
from agentcli.engine.events import (
    AssistantMessage,
    EndReason,
    RequestStarted,
    SubagentEvent,
    ToolCallFinished,
    ToolCallRunning,
    ToolCallStarted,
    ToolPermissionRequested,
    TurnEnded,
)
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest
from agentcli.telemetry.recorder import TelemetryRecorder
from agentcli.tools.display import DiffDisplay


class Exported:
    def __init__(self) -> None:
        self.metrics = InMemoryMetricReader()
        self.logs = InMemoryLogRecordExporter()
        self.spans = InMemorySpanExporter()
        loggers = LoggerProvider(shutdown_on_exit=False)
        loggers.add_log_record_processor(SimpleLogRecordProcessor(self.logs))
        tracers = TracerProvider(shutdown_on_exit=False)
        tracers.add_span_processor(SimpleSpanProcessor(self.spans))
        meters = MeterProvider(metric_readers=[self.metrics], shutdown_on_exit=False)
        self.recorder = TelemetryRecorder(
            meters.get_meter("t"), loggers.get_logger("t"), tracers.get_tracer("t")
        )

    def points(self, name: str) -> list[tuple[float, dict[str, Any]]]:
        data = self.metrics.get_metrics_data()
        return [
            (point.value, dict(point.attributes or {}))
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
            for point in metric.data.data_points
        ]

    def events(self, name: str) -> list[dict[str, Any]]:
        return [
            dict(record.log_record.attributes or {})
            for record in self.logs.get_finished_logs()
            if record.log_record.event_name == name
        ]


def result(tool_use_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": "ok"}


def question(tool_use_id: str) -> PermissionQuestion:
    request = PermissionRequest(
        tool_name="Edit",
        tool_use_id=tool_use_id,
        input={},
        title="Edit file",
        summary="",
        reason="",
    )
    return PermissionQuestion(request)


@pytest.mark.parametrize(
    ("answer", "decision", "source"),
    [
        (PermissionAnswer(allow=True), "accept", "user_temporary"),
        (PermissionAnswer(allow=True, scope="session"), "accept", "user_permanent"),
        (PermissionAnswer(allow=False), "reject", "user_reject"),
        (PermissionAnswer(allow=False, interrupt=True), "reject", "user_abort"),
    ],
)
async def test_the_persons_answer_is_the_decisions_source(answer, decision, source):
    exported = Exported()
    recorder = exported.recorder
    recorder.prompt_submitted("s1", "change it")
    recorder.event("s1", "m", ToolCallStarted("t1", "Edit", {}))
    asked = question("t1")
    recorder.event("s1", "m", ToolPermissionRequested(asked))
    asked.answer(answer)
    if answer.allow:
        recorder.event("s1", "m", ToolCallRunning("t1", "Edit"))
    diff = DiffDisplay(path="a.py", hunks=(), added=2, removed=1)
    status = "done" if answer.allow else "denied"
    recorder.event("s1", "m", ToolCallFinished("t1", "Edit", result("t1"), False, status, diff))
    recorder.event("s1", "m", TurnEnded(EndReason.COMPLETED, 1))

    (decided,) = exported.events("agentcli.tool_decision")
    assert (decided["decision"], decided["source"]) == (decision, source)
    (counted,) = exported.points("agentcli.tool_call.count")
    assert counted[1]["decision"] == decision and counted[1]["source"] == source
    lines = {
        attrs["type"]: value for value, attrs in exported.points("agentcli.lines_of_code.count")
    }
    assert lines == ({"added": 2, "removed": 1} if answer.allow else {})


async def test_a_subagents_requests_and_calls_are_its_own():
    exported = Exported()
    recorder = exported.recorder
    recorder.prompt_submitted("s1", "look around")
    recorder.event("s1", "m", RequestStarted(1))
    recorder.event("s1", "m", ToolCallStarted("task", "Task", {}))

    def inner(event: Any) -> SubagentEvent:
        return SubagentEvent("task", "Explore", "look", event)

    recorder.event("s1", "m", inner(RequestStarted(1)))
    recorder.event("s1", "m", inner(ToolCallStarted("g1", "Grep", {})))
    recorder.event("s1", "m", inner(ToolCallRunning("g1", "Grep")))
    recorder.event("s1", "m", inner(ToolCallFinished("g1", "Grep", result("g1"), False, "done")))
    sub_answer = AssistantMessage(
        {"role": "assistant", "content": []}, Usage(5, 1), "end_turn", "small"
    )
    recorder.event("s1", "m", inner(sub_answer))
    recorder.event("s1", "m", ToolCallRunning("task", "Task"))
    recorder.event("s1", "m", ToolCallFinished("task", "Task", result("task"), False, "done"))
    answer = AssistantMessage({"role": "assistant", "content": []}, Usage(10, 2), "end_turn", "big")
    recorder.event("s1", "m", answer)
    recorder.event("s1", "m", TurnEnded(EndReason.COMPLETED, 1))

    requests = exported.events("agentcli.api_request")
    assert [(r["model"], r.get("agent_type")) for r in requests] == [
        ("small", "Explore"),
        ("big", None),
    ]
    results = {r["tool_name"]: r.get("agent_type") for r in exported.events("agentcli.tool_result")}
    assert results == {"Grep": "Explore", "Task": None}
    spans = {span.name for span in exported.spans.get_finished_spans()}
    assert spans == {"agentcli.interaction", "agentcli.llm_request", "agentcli.tool"}
    assert all(span.end_time for span in exported.spans.get_finished_spans())


async def test_a_failing_exporter_never_reaches_the_turn():
    class Broken:
        def emit(self, **_kwargs: Any) -> None:
            raise RuntimeError("collector exploded")

    recorder = TelemetryRecorder(None, Broken(), None)  # type: ignore[arg-type]
    recorder.prompt_submitted("s1", "hi")  # must not raise
    recorder.event("s1", "m", RequestStarted(1))
    recorder.event(
        "s1", "m", AssistantMessage({"role": "assistant", "content": []}, Usage(), None, "m")
    )
    recorder.event("s1", "m", TurnEnded(EndReason.COMPLETED, 1))
