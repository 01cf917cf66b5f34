"""Shared pieces of the streaming RPCs."""

from __future__ import annotations

from typing import Any, TypeVar

from outrider.server.core.request_ids import Started
from outrider.v1 import run_event_pb2

RUN_METADATA_KEY = "outrider-run"  # initial metadata naming the run a streaming start created
# Initial metadata of a start that returned the run an earlier start with its request id made.
REPLAYED_METADATA_KEY = "outrider-idempotent-replayed"

R = TypeVar("R")


def start_metadata(started: Started, streaming: bool) -> tuple[tuple[str, str], ...]:
    """The initial metadata of a start's response: the run's name on streams, and the replay
    mark when the start repeated an earlier one."""
    named = ((RUN_METADATA_KEY, started.run.name),) if streaming else ()
    return named + (((REPLAYED_METADATA_KEY, "true"),) if started.replayed else ())


def is_replay(metadata: Any) -> bool:
    return any(key == REPLAYED_METADATA_KEY and value == "true" for key, value in metadata or ())


def as_response(
    response_type: type[R], item: run_event_pb2.RunEvent | run_event_pb2.Heartbeat
) -> R:
    """Wraps a watch item in a stream response whose `kind` oneof has `event` and `heartbeat`."""
    field = "event" if isinstance(item, run_event_pb2.RunEvent) else "heartbeat"
    kwargs: dict[str, Any] = {field: item}
    return response_type(**kwargs)
