"""A run's start and end as metrics, span attributes and log lines."""

from __future__ import annotations

import logging

from outrider.server.core import clock
from outrider.server.telemetry import metrics, tracing
from outrider.v1 import run_pb2

# the run's own lines, under the name of their room (the manager logs there too)
log = logging.getLogger("outrider.server.core.runs")

KIND_NAMES: dict[int, str] = {
    run_pb2.RUN_KIND_AUTOMATE: "Automate",
    run_pb2.RUN_KIND_RESEARCH: "Research",
}


def kind_label(kind: int) -> str:
    return KIND_NAMES[kind].lower()


def observe_start(kind: int, created_us: int) -> None:
    """The run got its slot: the time it waited for one, and a log line."""
    queued = (clock.now_us() - created_us) / 1e6
    metrics.run_started(kind_label(kind), queued)
    log.info("%s run started", KIND_NAMES[kind], extra={"run_kind": kind_label(kind)})


def observe_end(kind: int, created_us: int, state: int, outcome: run_pb2.RunOutcome) -> None:
    """Metrics of the ended run, and its final state on the run span (the current one)."""
    label = kind_label(kind)
    state_name = run_pb2.RunState.Name(state).removeprefix("RUN_STATE_").lower()
    seconds = (clock.now_us() - created_us) / 1e6
    metrics.run_active(label, -1)
    metrics.run_finished(label, state_name, outcome.error_code, seconds)
    attributes = {"outrider.run.state": state_name}
    if outcome.error_code:
        attributes["outrider.error.code"] = outcome.error_code
    tracing.annotate(attributes, error=outcome.error_code)
    log.info(
        "run ended %s%s after %.1f s",
        state_name,
        f" ({outcome.error_code}: {outcome.error_message})" if outcome.error_code else "",
        seconds,
        extra={"run_state": state_name, "error_code": outcome.error_code, "duration_s": seconds},
    )
