"""A step of an agent observed: its span, and its latency in outrider_step_duration_seconds."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from opentelemetry.trace import Span

from outrider.server.telemetry import metrics, tracing


@contextlib.contextmanager
def step(
    kind: str, step: str, span_name: str, attributes: tracing.Attributes | None = None
) -> Iterator[Span]:
    """`kind` is automate or research; `step` the histogram label (iteration, plan, write...)."""
    started = time.perf_counter()
    try:
        with tracing.span(span_name, attributes) as current:
            yield current
    finally:
        metrics.step_finished(kind, step, time.perf_counter() - started)
