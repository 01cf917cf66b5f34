"""One line of the run page's timeline per event: what it says happened in words
(event_words.py), and, behind the page's toggle, its raw name and whole payload. Frequent
bookkeeping events (metrics, model calls, debug, screenshots) and events without words are
marked as detail: the page hides them until asked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from outrider.client.events import form_request
from outrider.client.wording import approval_question, form_question
from outrider.server.console_edge import event_words
from outrider.server.core.events.names import event_name
from outrider.v1 import run_event_pb2

DETAIL_EVENTS = frozenset(
    {
        "agent:processing",
        "ai:generation",
        "browser:action_started",
        "browser:screenshot_captured",
        "browser:screenshot_captured_image",
        "system:debug_compression",
        "system:debug_message",
        "task:metrics",
        "task:metrics_incremental",
        "task:trace_context",
        "cdp:endpoint_connected",
    }
)
PROBLEM_EVENTS = frozenset(
    {"error", "ai:generation:error", "task:aborted", "task:validation_error", "agent:waiting"}
)
QUESTION_EVENTS = frozenset(
    {
        "interactive:form_data:request",
        "interactive:form_data:error",
        "approval_requested",
        "approval_resolved",
        "input_resolved",
        "takeover_requested",
        "takeover_started",
        "takeover_ended",
    }
)
# The fields that say most about an event, in the order a summary takes them.
_HEADLINE = (
    "message",
    "reasoning",
    "action",
    "ref",
    "title",
    "url",
    "final_answer",
    "finalAnswer",
    "reason",
    "ending",
    "driver",
    "note",
    "observation",
    "operation",
    "form_description",
    "decision",
    "position",
    "current_iteration",
    "query",
    "queries",
)
_MAX_SUMMARY = 300


@dataclass(frozen=True)
class Row:
    sequence: int
    time: Timestamp
    name: str
    label: str  # what happened, in words ("" for bookkeeping)
    summary: str  # the payload's telling fields, for the raw view
    detail: dict[str, Any]
    category: str  # "detail", "problem", "question" or "step"
    artifact: str  # the artifact's id when the event has one
    step: str = ""  # the key of the step it belongs to (steps.py)


def row(
    event: run_event_pb2.RunEvent,
    step: str = "",
    named: tuple[str, dict[str, Any]] | None = None,
) -> Row:
    """The event's line; `named`: its name and payload_dict when the caller has them."""
    name, data = named or (event_name(event), payload_dict(event))
    label = asked(event) or event_words.label(name, data)
    return Row(
        sequence=event.sequence,
        time=event.time,
        name=name,
        label=label,
        summary=_summary(data),
        detail=data,
        category=_category(name, data, label),
        artifact=event.artifact.rsplit("/", 1)[-1] if event.artifact else "",
        step=step,
    )


def payload_dict(event: run_event_pb2.RunEvent) -> dict[str, Any]:
    """The event's own payload as plain data (field names as in the proto)."""
    arm = event.WhichOneof("payload")
    outer: Message = getattr(event, arm or "automate")
    if arm in ("automate", "research"):
        inner = outer.WhichOneof("event")
        outer = getattr(outer, inner) if inner else outer
    data: dict[str, Any] = json_format.MessageToDict(outer, preserving_proto_field_name=True)
    data.pop("image_data", None)  # an inline screenshot: shown in the filmstrip, not as text
    data.pop("answer_url", None)
    return data


def asked(event: run_event_pb2.RunEvent) -> str:
    """A question says it in a person's words, as its answer form does ("" for other events)."""
    if event.HasField("approval_requested"):
        return approval_question(event.approval_requested)
    form = form_request(event)  # a re-request too
    return form_question(form) if form is not None else ""


def _summary(data: dict[str, Any]) -> str:
    parts: list[str] = []
    for key in _HEADLINE:
        value = data.get(key)
        if value in (None, "", [], {}):
            continue
        text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        parts.append(text if key in ("message", "reasoning") else f"{key}: {text}")
        if len(" · ".join(parts)) > _MAX_SUMMARY:
            break
    line = " · ".join(parts) or _fallback(data)
    return line if len(line) <= _MAX_SUMMARY else line[: _MAX_SUMMARY - 1] + "…"


def _fallback(data: dict[str, Any]) -> str:
    scalars = [f"{k}: {v}" for k, v in data.items() if isinstance(v, str | int | float | bool)]
    return " · ".join(scalars[:4])


def _category(name: str, data: dict[str, Any], label: str) -> str:
    if name in QUESTION_EVENTS:
        return "question"
    failed = name == "browser:action_completed" and data.get("success") is not True
    if name in PROBLEM_EVENTS or failed or (name == "complete" and data.get("error")):
        return "problem"
    asking = name == "agent:action" and data.get("action") in ("request_input", "request_human")
    if name in DETAIL_EVENTS or not label or asking:  # asking: its question says it in words
        return "detail"
    return "step"
