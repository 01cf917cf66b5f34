"""Shared pieces of the streaming RPCs."""

from __future__ import annotations

from typing import Any, TypeVar

from outrider.v1 import run_event_pb2

RUN_METADATA_KEY = "outrider-run"  # initial metadata naming the run a streaming start created

R = TypeVar("R")


def as_response(
    response_type: type[R], item: run_event_pb2.RunEvent | run_event_pb2.Heartbeat
) -> R:
    """Wraps a watch item in a stream response whose `kind` oneof has `event` and `heartbeat`."""
    field = "event" if isinstance(item, run_event_pb2.RunEvent) else "heartbeat"
    kwargs: dict[str, Any] = {field: item}
    return response_type(**kwargs)
