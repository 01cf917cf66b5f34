"""Builders for the requests tests send, and readers for what streams return."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.protobuf import struct_pb2

from outrider.server.core.events.names import event_name
from outrider.v1 import params_pb2, run_event_pb2, run_service_pb2


def automate_request(
    task: str = "test task", cancel_on_disconnect: bool = False, **plan: Any
) -> run_service_pb2.AutomateRequest:
    data = struct_pb2.Struct()
    data.update(plan)
    return run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(task=task, data=data),
        options=params_pb2.RunOptions(cancel_on_disconnect=cancel_on_disconnect),
    )


def research_query(**plan: Any) -> str:
    return json.dumps(plan)


async def collect(stream: AsyncIterator[Any]) -> list[run_event_pb2.RunEvent]:
    """Every event of a stream response iterator, heartbeats dropped."""
    return [response.event async for response in stream if response.HasField("event")]


def names(events: list[run_event_pb2.RunEvent]) -> list[str]:
    return [event_name(event) for event in events]


async def read_until(
    stream: AsyncIterator[run_service_pb2.StreamRunEventsResponse], wanted: str
) -> list[run_event_pb2.RunEvent]:
    """The stream's events up to and including the first named `wanted`."""
    events = []
    async for response in stream:
        if response.HasField("event"):
            events.append(response.event)
            if names(events)[-1] == wanted:
                return events
    raise AssertionError(f"the stream ended before {wanted}: {names(events)}")


async def read_rest(call: Any) -> list[run_event_pb2.RunEvent]:
    """The remaining events of a call already read with `read()` (grpc forbids mixing styles)."""
    events = []
    while (response := await call.read()) is not grpc.aio.EOF:
        if response.HasField("event"):
            events.append(response.event)
    return events
