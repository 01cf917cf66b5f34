"""Fully populated examples of every event payload, for checking the wire format against the
official SDK's models: every scalar set to a non-default value, every repeated field and map
given an element, and each oneof set to its arm number `variant` (modulo its arm count), so a
handful of variants covers every arm of every union."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import research_events_pb2 as re_pb

VARIANTS = 9  # the most arms any union has (ToolOutputContentValue)
_DEPTH = 8
_PLAIN: dict[str, Any] = {
    "google.protobuf.Struct": {"provider": {"key": "value", "n": 2}},
    "google.protobuf.Value": {"nested": [1, "two"]},
    "google.protobuf.ListValue": [1, "two"],
}


def populate(message: Message, variant: int = 0, depth: int = 0) -> Message:
    descriptor = message.DESCRIPTOR
    if descriptor.full_name in _PLAIN:
        json_format.ParseDict(_PLAIN[descriptor.full_name], message)
        return message
    chosen = _chosen_arms(descriptor, variant)
    for field in descriptor.fields:
        oneof = field.containing_oneof
        if oneof is not None and oneof.name in chosen and chosen[oneof.name] != field.name:
            continue
        if field.message_type is not None and depth >= _DEPTH:
            continue
        _fill(message, field, variant, depth)
    return message


def _chosen_arms(descriptor: Any, variant: int) -> dict[str, str]:
    chosen = {}
    for oneof in descriptor.oneofs:
        fields = list(oneof.fields)
        if len(fields) > 1 or not oneof.name.startswith("_"):
            chosen[oneof.name] = fields[variant % len(fields)].name
    return chosen


def _fill(message: Message, field: Any, variant: int, depth: int) -> None:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value_field = field.message_type.fields_by_name["value"]
        entries = getattr(message, field.name)
        if value_field.message_type is not None:
            populate(entries["k"], variant, depth + 1)
        else:
            entries["k"] = _scalar(value_field, variant)
    elif field.message_type is not None:
        target = getattr(message, field.name)
        child = target.add() if field.is_repeated else target
        populate(child, variant, depth + 1)
    elif field.is_repeated:
        getattr(message, field.name).append(_scalar(field, variant))
    else:
        setattr(message, field.name, _scalar(field, variant))


def _scalar(field: Any, variant: int) -> Any:
    kind = field.type
    if kind == FieldDescriptor.TYPE_ENUM:
        numbers = [v.number for v in field.enum_type.values if v.number]
        return numbers[variant % len(numbers)]
    if kind == FieldDescriptor.TYPE_BOOL:
        return True
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return 1712345678901.5
    if kind == FieldDescriptor.TYPE_STRING:
        return f"{field.name}-{variant}"
    if kind == FieldDescriptor.TYPE_BYTES:
        return b"\x01"
    return 7


def payload_arms(union: type[Message]) -> list[str]:
    return [f.name for f in union.DESCRIPTOR.oneofs_by_name["event"].fields]


def example(union: type[Message], arm: str, variant: int = 0) -> Message:
    """A populated payload of `arm` of AutomateEvent/ResearchEvent."""
    payload = populate(type(getattr(union(), arm))(), variant)
    if isinstance(payload, ae.AutomateError):
        payload.success = False  # the seed's literal `false`
    return payload


AUTOMATE_ARMS = payload_arms(ae.AutomateEvent)
RESEARCH_ARMS = payload_arms(re_pb.ResearchEvent)
