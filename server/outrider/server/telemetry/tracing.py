"""Spans through the OpenTelemetry API, and the SDK wired from the standard OTEL_* variables.

Code everywhere calls `span(...)`; until `install` runs (the server's start-up does), the API is a
no-op that still carries a caller's incoming trace context. `install` sets up the SDK so spans
have real ids (log lines and `task:trace_context` carry them) and adds the OTLP exporter only
when an OTLP endpoint is configured, so tracing leaves the process only when asked to.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator, Mapping

from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from opentelemetry.util.types import AttributeValue

log = logging.getLogger(__name__)
TRACER = trace.get_tracer("outrider.server")
_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
_PROTOCOLS = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")

Attributes = Mapping[str, AttributeValue]


@contextlib.contextmanager
def span(
    name: str, attributes: Attributes | None = None, kind: SpanKind = SpanKind.INTERNAL
) -> Iterator[Span]:
    """A child of the current span for the duration of the block; exceptions mark it failed."""
    with TRACER.start_as_current_span(name, kind=kind, attributes=attributes) as current:
        yield current


def incoming(carrier: Mapping[str, str]) -> Context:
    """The caller's context from W3C `traceparent`/`tracestate` (and baggage) headers."""
    return propagate.extract(carrier)


def current_ids() -> tuple[str, str]:
    """(trace id, span id) of the current span in W3C hex, or empty strings when none."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return "", ""
    return trace.format_trace_id(context.trace_id), trace.format_span_id(context.span_id)


def exporting(environ: Mapping[str, str]) -> bool:
    """True when the OTEL_* variables ask for spans to be exported over OTLP."""
    if environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() == "none":
        return False
    return any(environ.get(name, "").strip() for name in _ENDPOINTS)


def install(environ: Mapping[str, str] | None = None) -> TracerProvider | None:
    """Sets the process's tracer provider (once) from the OTEL_* variables; None when
    OTEL_SDK_DISABLED=true. Call `shutdown` on the result at exit to flush pending spans."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    attributes = {} if env.get("OTEL_SERVICE_NAME") else {"service.name": "outrider"}
    provider = TracerProvider(resource=Resource.create(attributes))
    if exporting(env):
        provider.add_span_processor(BatchSpanProcessor(_exporter(env)))
        log.info("exporting traces over OTLP (%s)", _protocol(env))
    trace.set_tracer_provider(provider)
    return provider


def _protocol(env: Mapping[str, str]) -> str:
    chosen = next((env[name] for name in _PROTOCOLS if env.get(name, "").strip()), "")
    return chosen.strip().lower() or "http/protobuf"


def _exporter(env: Mapping[str, str]) -> SpanExporter:
    protocol = _protocol(env)
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter()
    if protocol == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
            OTLPSpanExporter as HttpExporter,
        )

        return HttpExporter()
    raise ValueError(
        f"unsupported OTLP protocol {protocol!r}: set OTEL_EXPORTER_OTLP_PROTOCOL to "
        "http/protobuf or grpc"
    )


def annotate(attributes: Attributes, error: str = "") -> None:
    """Adds attributes to the current span, and marks it failed with `error` when given."""
    current = trace.get_current_span()
    current.set_attributes(attributes)
    if error:
        current.set_status(Status(StatusCode.ERROR, error))
