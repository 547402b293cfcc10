"""A real OTLP receiver on loopback, over HTTP (http/protobuf) or gRPC.

It decodes what exporters send with OpenTelemetry's own protobuf classes, the
way a collector does, and keeps it for the test to read: the points of each
metric, the log records (events) and the spans, with their attributes as
plain Python values. A request that does not decode is answered 400 (HTTP)
or INVALID_ARGUMENT (gRPC) and kept in `rejected`, so a malformed export
fails the test rather than passing unseen.
"""

from __future__ import annotations

import threading
from concurrent import futures
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2, metrics_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


@dataclass(frozen=True)
class Point:
    metric: str
    value: float
    attributes: dict[str, Any]
    unit: str


@dataclass(frozen=True)
class Record:
    event_name: str
    attributes: dict[str, Any]
    resource: dict[str, Any]


@dataclass(frozen=True)
class Span:
    name: str
    span_id: bytes
    parent_span_id: bytes
    trace_id: bytes
    attributes: dict[str, Any]
    events: tuple[str, ...]


@dataclass
class Received:
    """Everything the receiver was sent, decoded."""

    points: list[Point] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def metric(self, name: str) -> list[Point]:
        return [point for point in self.points if point.metric == name]

    def total(self, name: str, **attributes: Any) -> float:
        """The sum of a counter's points (deltas) whose attributes include these."""
        return sum(
            p.value
            for p in self.metric(name)
            if all(p.attributes.get(k) == v for k, v in attributes.items())
        )

    def events(self, name: str) -> list[Record]:
        return [record for record in self.records if record.event_name == name]

    def take_metrics(self, body: bytes) -> None:
        request = metrics_service_pb2.ExportMetricsServiceRequest.FromString(body)
        with self.lock:
            for resource_metrics in request.resource_metrics:
                self.resources.append(_attributes(resource_metrics.resource.attributes))
                for scope in resource_metrics.scope_metrics:
                    for metric in scope.metrics:
                        kind = metric.WhichOneof("data")
                        for point in getattr(metric, kind).data_points if kind else ():
                            value = point.as_double if point.HasField("as_double") else point.as_int
                            self.points.append(
                                Point(
                                    metric.name, value, _attributes(point.attributes), metric.unit
                                )
                            )

    def take_logs(self, body: bytes) -> None:
        request = logs_service_pb2.ExportLogsServiceRequest.FromString(body)
        with self.lock:
            for resource_logs in request.resource_logs:
                resource = _attributes(resource_logs.resource.attributes)
                for scope in resource_logs.scope_logs:
                    for record in scope.log_records:
                        self.records.append(
                            Record(record.event_name, _attributes(record.attributes), resource)
                        )

    def take_spans(self, body: bytes) -> None:
        request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
        with self.lock:
            for resource_spans in request.resource_spans:
                for scope in resource_spans.scope_spans:
                    for span in scope.spans:
                        self.spans.append(
                            Span(
                                span.name,
                                span.span_id,
                                span.parent_span_id,
                                span.trace_id,
                                _attributes(span.attributes),
                                tuple(event.name for event in span.events),
                            )
                        )


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    return getattr(value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


class HttpReceiver:
    """OTLP over HTTP: POST /v1/metrics, /v1/logs, /v1/traces with protobuf bodies."""

    def __init__(self) -> None:
        self.received = Received()
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                take = {
                    "/v1/metrics": (
                        received.take_metrics,
                        metrics_service_pb2.ExportMetricsServiceResponse,
                    ),
                    "/v1/logs": (received.take_logs, logs_service_pb2.ExportLogsServiceResponse),
                    "/v1/traces": (
                        received.take_spans,
                        trace_service_pb2.ExportTraceServiceResponse,
                    ),
                }.get(self.path)
                if take is None or self.headers.get("Content-Type") != "application/x-protobuf":
                    received.rejected.append(f"{self.path} {self.headers.get('Content-Type')}")
                    self.send_response(404 if take is None else 415)
                    self.end_headers()
                    return
                try:
                    take[0](body)
                except DecodeError as exc:
                    received.rejected.append(f"{self.path}: {exc}")
                    self.send_response(400)
                    self.end_headers()
                    return
                answer = take[1]().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> HttpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class GrpcReceiver:
    """OTLP over gRPC: the collector's three Export services."""

    def __init__(self) -> None:
        self.received = Received()
        received = self.received

        def servicer(base: type, take: Any, response: type) -> Any:
            class Service(base):  # type: ignore[misc, valid-type]
                def Export(self, request: Any, context: Any) -> Any:
                    take(request.SerializeToString())
                    return response()

            return Service()

        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(
            servicer(
                metrics_service_pb2_grpc.MetricsServiceServicer,
                received.take_metrics,
                metrics_service_pb2.ExportMetricsServiceResponse,
            ),
            self._server,
        )
        logs_service_pb2_grpc.add_LogsServiceServicer_to_server(
            servicer(
                logs_service_pb2_grpc.LogsServiceServicer,
                received.take_logs,
                logs_service_pb2.ExportLogsServiceResponse,
            ),
            self._server,
        )
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(
            servicer(
                trace_service_pb2_grpc.TraceServiceServicer,
                received.take_spans,
                trace_service_pb2.ExportTraceServiceResponse,
            ),
            self._server,
        )
        port = self._server.add_insecure_port("127.0.0.1:0")
        self.endpoint = f"http://127.0.0.1:{port}"

    def __enter__(self) -> GrpcReceiver:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stop(grace=None)
