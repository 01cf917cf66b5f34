"""Reading RunEvent protos: Tabstack event names and the few facts callers ask of an event."""

from __future__ import annotations

from functools import cache

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from outrider.v1 import automate_events_pb2, options_pb2, research_events_pb2, run_event_pb2

RunEvent = run_event_pb2.RunEvent


@cache
def _names(descriptor: Descriptor) -> dict[str, str]:
    extension = options_pb2.event_name
    oneof = descriptor.oneofs_by_name["event"]
    return {f.name: f.GetOptions().Extensions[extension] for f in oneof.fields}  # type: ignore[index]


def event_name(event: RunEvent) -> str:
    """ "agent:action", "complete", ... for Tabstack events; the arm name for our own events
    ("approval_requested", "approval_resolved", "input_resolved", "run_queued")."""
    arm = event.WhichOneof("payload")
    if arm in ("automate", "research"):
        inner: Message = getattr(event, arm)
        kind = inner.WhichOneof("event")
        return _names(inner.DESCRIPTOR)[kind] if kind else ""
    return arm or ""


def payload(event: RunEvent) -> Message | None:
    """The innermost message: e.g. the AgentAction of an "agent:action" event."""
    arm = event.WhichOneof("payload")
    if arm is None:
        return None
    outer: Message = getattr(event, arm)
    if isinstance(outer, automate_events_pb2.AutomateEvent | research_events_pb2.ResearchEvent):
        kind = outer.WhichOneof("event")
        return getattr(outer, kind) if kind else None
    return outer


def form_request(event: RunEvent) -> automate_events_pb2.InteractiveFormDataRequest | None:
    automate = event.automate
    if event.HasField("automate") and automate.HasField("interactive_form_data_request"):
        return automate.interactive_form_data_request
    return None


def approval_request(event: RunEvent) -> run_event_pb2.ApprovalRequested | None:
    return event.approval_requested if event.HasField("approval_requested") else None
