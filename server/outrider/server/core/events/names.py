"""Tabstack names read from the contract: event names from the (outrider.v1.event_name) option,
enum literals from the (outrider.v1.wire_value) option."""

from __future__ import annotations

from functools import cache

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from outrider.v1 import automate_events_pb2, options_pb2, research_events_pb2, run_event_pb2


@cache
def _names(descriptor: Descriptor) -> dict[str, str]:
    fields: list[FieldDescriptor] = list(descriptor.oneofs_by_name["event"].fields)
    extension = options_pb2.event_name
    return {f.name: f.GetOptions().Extensions[extension] for f in fields}  # type: ignore[index]


def event_name(event: run_event_pb2.RunEvent) -> str:
    """ "agent:action", "complete", ... for Tabstack events; the arm name for our own events."""
    arm = event.WhichOneof("payload")
    if arm in ("automate", "research"):
        inner: Message = getattr(event, arm)
        return payload_event_name(inner)
    return arm or ""


def payload_event_name(payload: Message) -> str:
    if isinstance(payload, automate_events_pb2.AutomateEvent | research_events_pb2.ResearchEvent):
        arm = payload.WhichOneof("event")
        return arm_event_name(payload, arm) if arm else ""
    return ""


def arm_event_name(payload: Message, arm: str) -> str:
    """The event name of `arm` of the `event` oneof of `payload` (an AutomateEvent or a
    ResearchEvent)."""
    return _names(payload.DESCRIPTOR)[arm]


@cache
def wire_literals(enum: EnumDescriptor) -> dict[int, str]:
    """Each non-zero value's Tabstack literal ("" where the contract gives none)."""
    extension = options_pb2.wire_value
    return {
        v.number: v.GetOptions().Extensions[extension]  # type: ignore[index]
        for v in enum.values
        if v.number
    }


@cache
def by_wire_value(enum: EnumDescriptor) -> dict[str, int]:
    """Enum numbers keyed by their Tabstack literal, e.g. {"tool-calls": 4}."""
    return {literal: number for number, literal in wire_literals(enum).items() if literal}
