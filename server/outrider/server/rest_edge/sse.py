"""Server-sent-event framing in the seed's wire format.

An event is one block:   id: <sequence>\\nevent: <name>\\n[retry: <ms>\\n]data: <json>\\n\\n
where <json> is the event's `data` object (the Tabstack SDK wraps it as {"event", "data"}).
`retry:` rides on the first event of a response, never alone: a block without `data` would
reach clients as an event with empty data, which the SDK cannot parse.

A heartbeat is a single comment line, ": heartbeat <last sequence>\\n", with no blank line after
it. A lone blank line after an `id:` has been seen makes the SDK's decoder emit an empty event,
so comments must not end a block.
"""

from __future__ import annotations

from typing import Any

import orjson
from google.protobuf.message import Message

from outrider.server.core.events.names import arm_event_name, event_name
from outrider.server.rest_edge.wire import to_json
from outrider.v1 import run_event_pb2

TABSTACK_ARMS = frozenset({"automate", "research"})


def payload_of(event: run_event_pb2.RunEvent) -> Message:
    """The message whose JSON is the event's data: the Tabstack arm's payload, or ours."""
    arm = event.WhichOneof("payload")
    outer: Message = getattr(event, arm or "automate")
    if arm in TABSTACK_ARMS:
        inner_arm = outer.WhichOneof("event")
        return getattr(outer, inner_arm) if inner_arm else outer
    return outer


def named_payload(event: run_event_pb2.RunEvent) -> tuple[str, Message]:
    """`event_name(event)` and `payload_of(event)` in one pass over the event (sending an event
    is mostly this and the conversion to JSON)."""
    arm = event.WhichOneof("payload")
    if arm not in TABSTACK_ARMS:
        return event_name(event), payload_of(event)
    outer: Message = getattr(event, arm)
    inner_arm = outer.WhichOneof("event")
    if inner_arm is None:
        return "", outer
    return arm_event_name(outer, inner_arm), getattr(outer, inner_arm)


def event_block(
    event: run_event_pb2.RunEvent, retry_ms: int | None = None, opted_in: bool = False
) -> bytes:
    """`opted_in`: the caller asked for Outrider's own events and fields too."""
    name, payload = named_payload(event)
    return block(event.sequence, name, to_json(payload, opted_in), retry_ms)


def block(sequence: int, name: str, data: Any, retry_ms: int | None = None) -> bytes:
    retry = "" if retry_ms is None else f"retry: {retry_ms}\n"
    head = f"id: {sequence}\nevent: {name}\n{retry}data: ".encode()
    return head + orjson.dumps(data) + b"\n\n"


def heartbeat(last_sequence: int) -> bytes:
    return f": heartbeat {last_sequence}\n".encode()


def comment(text: str) -> bytes:
    return f": {text}\n".encode()
