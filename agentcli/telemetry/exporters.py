"""The OpenTelemetry SDK's providers, built from the standard `OTEL_*` variables.

Only imported when telemetry is on (runtime.py). A signal is exported when its
exporter variable names one, as in Claude Code: `OTEL_METRICS_EXPORTER`,
`OTEL_LOGS_EXPORTER`, `OTEL_TRACES_EXPORTER`, each a comma-separated list of
`otlp`, `console` or `none`. OTLP goes over `http/protobuf` (the default) or
`grpc`, chosen by `OTEL_EXPORTER_OTLP_PROTOCOL` or the signal's own
`OTEL_EXPORTER_OTLP_{METRICS,LOGS,TRACES}_PROTOCOL`; the endpoint, headers,
timeout and certificates are read by the SDK's exporters from their standard
variables. How often: `OTEL_METRIC_EXPORT_INTERVAL` (ms, default 60000),
`OTEL_LOGS_EXPORT_INTERVAL` and `OTEL_TRACES_EXPORT_INTERVAL` (ms, default 5000,
Claude Code's names; the SDK's `OTEL_BLRP_SCHEDULE_DELAY` and
`OTEL_BSP_SCHEDULE_DELAY` too). Metrics are sent as deltas unless
`OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE` says otherwise: each run is
a process of its own, so a cumulative counter would start from zero every time.

The console exporter writes to standard error, never standard output (`-p`
prints the answer there). A variable that names something unknown is not
guessed at: that signal is not exported, and a problem says why. The providers
do not shut themselves down at exit (each would wait up to its exporter's own
timeout): runtime.py does, within one bound for all.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor, ConsoleLogRecordExporter
from opentelemetry.sdk.metrics import (
    Counter,
    Histogram,
    MeterProvider,
    ObservableCounter,
    ObservableGauge,
    ObservableUpDownCounter,
    UpDownCounter,
)
from opentelemetry.sdk.metrics.export import (
    AggregationTemporality,
    ConsoleMetricExporter,
    MetricReader,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

PROTOCOLS = ("http/protobuf", "grpc")
EXPORTERS = ("otlp", "console", "none")
DEFAULT_EVENT_INTERVAL_MS = 5000


@dataclass
class Providers:
    """The providers telemetry records into; None where the signal is not exported."""

    meters: MeterProvider | None = None
    loggers: LoggerProvider | None = None
    tracers: TracerProvider | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def exporting(self) -> bool:
        return any(p is not None for p in (self.meters, self.loggers, self.tracers))


def build_providers(variables: Mapping[str, str], resource: Resource) -> Providers:
    """The providers of the signals `variables` ask for, with what could not be built."""
    providers = Providers()
    problems = providers.problems
    metric_exporters = _exporters(variables, "metrics", problems)
    if metric_exporters:
        interval = _millis(variables, problems, "OTEL_METRIC_EXPORT_INTERVAL")
        readers: list[MetricReader] = [
            PeriodicExportingMetricReader(exporter, export_interval_millis=interval)
            for exporter in metric_exporters
        ]
        providers.meters = MeterProvider(
            resource=resource, metric_readers=readers, shutdown_on_exit=False
        )
    log_exporters = _exporters(variables, "logs", problems)
    if log_exporters:
        delay = _event_interval(
            variables, problems, "OTEL_LOGS_EXPORT_INTERVAL", "OTEL_BLRP_SCHEDULE_DELAY"
        )
        providers.loggers = LoggerProvider(resource=resource, shutdown_on_exit=False)
        for exporter in log_exporters:
            providers.loggers.add_log_record_processor(
                BatchLogRecordProcessor(exporter, schedule_delay_millis=delay)
            )
    span_exporters = _exporters(variables, "traces", problems)
    if span_exporters:
        delay = _event_interval(
            variables, problems, "OTEL_TRACES_EXPORT_INTERVAL", "OTEL_BSP_SCHEDULE_DELAY"
        )
        providers.tracers = TracerProvider(resource=resource, shutdown_on_exit=False)
        for exporter in span_exporters:
            providers.tracers.add_span_processor(
                BatchSpanProcessor(exporter, schedule_delay_millis=delay)
            )
    return providers


def _exporters(variables: Mapping[str, str], signal: str, problems: list[str]) -> list[Any]:
    """The exporters `OTEL_<SIGNAL>_EXPORTER` names, built; none when it names none."""
    variable = f"OTEL_{signal.upper()}_EXPORTER"
    names = [n.strip().lower() for n in variables.get(variable, "").split(",") if n.strip()]
    unknown = [name for name in names if name not in EXPORTERS]
    if unknown:
        problems.append(
            f"{variable}={variables[variable]}: {', '.join(unknown)} is not an exporter agentcli "
            f"has ({', '.join(EXPORTERS)}); {signal} are not exported"
        )
        return []
    built: list[Any] = []
    for name in dict.fromkeys(names):
        if name == "console":
            built.append(_console_exporter(signal))
        elif name == "otlp":
            protocol = _protocol(variables, signal)
            if protocol not in PROTOCOLS:
                problems.append(
                    f"OTLP protocol {protocol!r} is not supported ({', '.join(PROTOCOLS)}); "
                    f"{signal} are not exported"
                )
                return []
            built.append(_otlp_exporter(signal, protocol, variables))
    return built


def _protocol(variables: Mapping[str, str], signal: str) -> str:
    own = variables.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL", "").strip()
    return (
        own or variables.get("OTEL_EXPORTER_OTLP_PROTOCOL", "").strip() or "http/protobuf"
    ).lower()


def _console_exporter(signal: str) -> Any:
    if signal == "metrics":
        return ConsoleMetricExporter(out=sys.stderr)
    if signal == "logs":
        return ConsoleLogRecordExporter(out=sys.stderr)
    return ConsoleSpanExporter(out=sys.stderr)


def _otlp_exporter(signal: str, protocol: str, variables: Mapping[str, str]) -> Any:
    """The OTLP exporter of one signal; imported here, as only the chosen one is needed
    (gRPC's library alone is a large import)."""
    if protocol == "grpc":
        if signal == "metrics":
            from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter

            return OTLPMetricExporter(preferred_temporality=_temporality(variables))
        if signal == "logs":
            from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter

            return OTLPLogExporter()
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter()
    if signal == "metrics":
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import (
            OTLPMetricExporter as HttpMetricExporter,
        )

        return HttpMetricExporter(preferred_temporality=_temporality(variables))
    if signal == "logs":
        from opentelemetry.exporter.otlp.proto.http._log_exporter import (
            OTLPLogExporter as HttpLogExporter,
        )

        return HttpLogExporter()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
        OTLPSpanExporter as HttpSpanExporter,
    )

    return HttpSpanExporter()


def _temporality(variables: Mapping[str, str]) -> dict[type, AggregationTemporality] | None:
    """Deltas, unless the standard variable chooses (then the exporter reads it)."""
    if variables.get("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "").strip():
        return None
    delta, cumulative = AggregationTemporality.DELTA, AggregationTemporality.CUMULATIVE
    return {
        Counter: delta,
        UpDownCounter: cumulative,
        Histogram: delta,
        ObservableCounter: delta,
        ObservableUpDownCounter: cumulative,
        ObservableGauge: cumulative,
    }


def _event_interval(
    variables: Mapping[str, str], problems: list[str], ours: str, standard: str
) -> float:
    """Claude Code's interval variable, else the SDK's, else 5 s."""
    for name in (ours, standard):
        if variables.get(name, "").strip():
            value = _millis(variables, problems, name)
            if value is not None:
                return value
    return DEFAULT_EVENT_INTERVAL_MS


def _millis(variables: Mapping[str, str], problems: list[str], name: str) -> float | None:
    """A positive number of milliseconds; None (the default) when unset or not one."""
    text = variables.get(name, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 1e12:
        problems.append(f"{name}={text} is not a number of milliseconds; the default is used")
        return None
    return value
