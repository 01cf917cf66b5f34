"""Log formats and tracing configuration, in process."""

from __future__ import annotations

import contextvars
import logging

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from outrider.server.telemetry import tracing
from outrider.server.telemetry.logs import RUN_ID, JsonFormatter, TextFormatter, bind_principal
from tests.telemetry.capture import json_log

log = logging.getLogger("tests.telemetry")


def log_in_context() -> None:
    RUN_ID.set("run-123")
    bind_principal("key:ops")
    tracer = TracerProvider().get_tracer("test")  # a local SDK: real ids, nothing global
    with tracer.start_as_current_span("work") as span:
        context = span.get_span_context()
        log.info("working on %s", "it", extra={"step": 3})
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("failed")
    log.info(
        "ids %s %s", trace.format_trace_id(context.trace_id), trace.format_span_id(context.span_id)
    )


def test_json_lines_carry_run_trace_principal_extras_and_the_exception() -> None:
    with json_log("tests.telemetry") as lines:
        contextvars.copy_context().run(log_in_context)
    working, failed, ids = lines
    trace_id, span_id = ids["message"].split()[1:]
    assert working["message"] == "working on it" and working["step"] == 3
    assert (working["run_id"], working["principal"]) == ("run-123", "key:ops")
    assert (working["trace_id"], working["span_id"]) == (trace_id, span_id)
    assert failed["level"] == "ERROR" and "ValueError: boom" in failed["exception"]
    assert "trace_id" not in ids and ids["run_id"] == "run-123"  # the span has ended
    assert RUN_ID.get() == ""  # nothing leaked out of the context


def test_text_lines_append_the_context() -> None:
    record = logging.LogRecord("x", logging.INFO, "", 0, "hello", None, None)

    def formatted() -> tuple[str, str]:
        plain = TextFormatter().format(record)
        RUN_ID.set("run-9")
        return plain, TextFormatter().format(record)

    plain, with_run = contextvars.copy_context().run(formatted)
    assert plain.endswith("x: hello") and with_run.endswith("x: hello [run_id=run-9]")
    assert JsonFormatter().format(record).startswith("{")


@pytest.mark.parametrize(
    ("environ", "exported"),
    [
        ({}, False),
        ({"OTEL_SERVICE_NAME": "x"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, False),
    ],
)
def test_spans_leave_the_process_only_when_an_otlp_endpoint_is_set(
    environ: dict[str, str], exported: bool
) -> None:
    assert tracing.exporting(environ) is exported
