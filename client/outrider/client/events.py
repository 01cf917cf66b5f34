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
    ("approval_requested", "approval_resolved", "input_resolved", "run_queued",
    "recipe_replayed", "run_resumed", "side_effect")."""
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
    """A form-data request to answer: `interactive:form_data:request`, or the re-request
    `interactive:form_data:error` sends after the page rejected the values (as a request with
    the new request_id; each field's `description` says what the page objected to, see
    form_errors). Answer both the same way, by request_id."""
    if not event.HasField("automate"):
        return None
    automate = event.automate
    if automate.HasField("interactive_form_data_request"):
        return automate.interactive_form_data_request
    if automate.HasField("interactive_form_data_error"):
        error = automate.interactive_form_data_error
        fields = []
        for field in error.fields:
            copy = automate_events_pb2.FormField()
            copy.CopyFrom(field)
            copy.description = error.field_errors.get(field.ref, field.description)
            fields.append(copy)
        return automate_events_pb2.InteractiveFormDataRequest(
            fields=fields,
            form_description=error.form_description,
            iteration_id=error.iteration_id,
            page_title=error.page_title,
            page_url=error.page_url,
            request_id=error.request_id,
            timestamp=error.timestamp,
        )
    return None


def form_errors(event: RunEvent) -> dict[str, str]:
    """Field ref -> what the page said was wrong, for an `interactive:form_data:error`."""
    if event.HasField("automate") and event.automate.HasField("interactive_form_data_error"):
        return dict(event.automate.interactive_form_data_error.field_errors)
    return {}


def approval_request(event: RunEvent) -> run_event_pb2.ApprovalRequested | None:
    return event.approval_requested if event.HasField("approval_requested") else None


def closed_unanswered(event: RunEvent) -> str | None:
    """The id of a form request or approval that closed without the caller's answer (it expired,
    or the run ended first): an answer still being typed for it would be refused."""
    unanswered = (
        run_event_pb2.RESOLUTION_SOURCE_EXPIRED,
        run_event_pb2.RESOLUTION_SOURCE_RUN_ENDED,
    )
    if event.HasField("input_resolved") and event.input_resolved.source in unanswered:
        return event.input_resolved.request_id
    if event.HasField("approval_resolved") and event.approval_resolved.source in unanswered:
        return event.approval_resolved.approval_id
    return None
