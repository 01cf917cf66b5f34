"""OTLP trace receivers on 127.0.0.1 for tests (OTLP/HTTP and OTLP/gRPC): they decode the
exporter's protobuf payloads (ExportTraceServiceRequest) into plain spans."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.trace.v1 import trace_pb2


@dataclass(frozen=True)
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: str  # SPAN_KIND_SERVER, ...
    attributes: dict[str, Any]
    status: str  # STATUS_CODE_UNSET, _OK or _ERROR
    start: int
    service: str


@dataclass
class Receiver:
    url: str
    spans: list[ReceivedSpan] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def snapshot(self) -> list[ReceivedSpan]:
        with self.lock:
            return list(self.spans)


def _value(value: common_pb2.AnyValue) -> Any:
    arm = value.WhichOneof("value")
    if arm == "array_value":
        return [_value(v) for v in value.array_value.values]
    return getattr(value, arm) if arm else None


def decode(payload: bytes) -> list[ReceivedSpan]:
    request = trace_service_pb2.ExportTraceServiceRequest.FromString(payload)
    spans = []
    for resource_spans in request.resource_spans:
        resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
        for scope in resource_spans.scope_spans:
            for span in scope.spans:
                spans.append(
                    ReceivedSpan(
                        name=span.name,
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_id=span.parent_span_id.hex(),
                        kind=trace_pb2.Span.SpanKind.Name(span.kind),
                        attributes={a.key: _value(a.value) for a in span.attributes},
                        status=trace_pb2.Status.StatusCode.Name(span.status.code),
                        start=span.start_time_unix_nano,
                        service=str(resource.get("service.name", "")),
                    )
                )
    return spans


@contextmanager
def otlp_receiver() -> Iterator[Receiver]:
    """Serves POST /v1/traces until the block ends."""
    receiver = Receiver("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            if self.headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path != "/v1/traces":
                self.send_error(404)
                return
            spans = decode(body)
            with receiver.lock:
                receiver.spans.extend(spans)
            reply = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


class _TraceService(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, receiver: Receiver) -> None:
        self._receiver = receiver

    def Export(
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: object
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        spans = decode(request.SerializeToString())
        with self._receiver.lock:
            self._receiver.spans.extend(spans)
        return trace_service_pb2.ExportTraceServiceResponse()


@contextmanager
def otlp_grpc_receiver() -> Iterator[Receiver]:
    """Serves opentelemetry.proto.collector.trace.v1.TraceService/Export until the block ends."""
    from concurrent.futures import ThreadPoolExecutor

    receiver = Receiver("")
    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(_TraceService(receiver), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    receiver.url = f"http://127.0.0.1:{port}"
    try:
        yield receiver
    finally:
        server.stop(None)
