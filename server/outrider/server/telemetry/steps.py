"""Agent work observed: a step (span + outrider_step_duration_seconds) and a browser action
(span + outrider_browser_action* metrics)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass

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


@dataclass
class ActionOutcome:
    ok: bool = False


@contextlib.contextmanager
def browser_action(action: str, ref: str) -> Iterator[ActionOutcome]:
    """Set `.ok` on the yielded outcome before the block ends."""
    attributes = {"outrider.browser.action": action}
    if ref:
        attributes["outrider.browser.ref"] = ref
    outcome = ActionOutcome()
    started = time.perf_counter()
    with tracing.span(f"browser.action {action}", attributes) as current:
        try:
            yield outcome
        finally:
            current.set_attribute("outrider.browser.success", outcome.ok)
            metrics.browser_action(action, outcome.ok, time.perf_counter() - started)
