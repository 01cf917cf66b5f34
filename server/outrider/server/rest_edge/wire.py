"""Protobuf messages as Tabstack JSON, driven by the contract alone.

- Keys are the fields' JSON names (lowerCamelCase, or the contract's `json_name`).
- Scalars without presence are always written (Tabstack requires `success: false`); fields with
  presence (`optional`, messages) only when set. 64-bit integers stay JSON numbers.
- Enums become their (outrider.v1.wire_value) literal (see `enums`).
- `Timestamp` becomes float epoch milliseconds; `Struct`/`Value`/`ListValue` plain JSON (NaN and
  Infinity, which JSON lacks, become null).
- Oneofs become Tabstack's unions:
  * a message that is nothing but a oneof of messages is a discriminated object, its arm name
    (kebab-case) under "role" for a oneof named `role` and under "type" otherwise
    (`{"role": "user", ...}`, `{"type": "tool-call", ...}`);
  * a message that is nothing but a oneof with a scalar arm is just its arm's value
    (`BinaryData` -> "base64..." or an object, `FileId` -> "id" or {"provider": "id"});
  * a oneof beside other fields is a key named after the oneof (`UserMessage.content`).
- A message that only wraps one repeated or map field (proto cannot nest lists) stands for that
  field's value wherever it is a field's value (`QueryBatch` -> ["q1", "q2"]); as an arm of a
  discriminated union it stays an object (`{"type": "content", "value": [...]}`).
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from google.protobuf import struct_pb2, timestamp_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor, OneofDescriptor
from google.protobuf.message import Message

from outrider.server.rest_edge.enums import enum_text

_PLAIN_JSON = frozenset(
    {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}
)
_TIMESTAMP = "google.protobuf.Timestamp"


def to_json(message: Message) -> Any:
    """The Tabstack JSON value of `message`."""
    name = message.DESCRIPTOR.full_name
    if name in _PLAIN_JSON:
        return _plain_json(message)
    if name == _TIMESTAMP:
        assert isinstance(message, timestamp_pb2.Timestamp)
        return message.seconds * 1000 + message.nanos / 1e6
    union = _sole_oneof(message.DESCRIPTOR)
    if union is not None:
        return _union(message, union)
    return _fields(message)


def _plain_json(message: Any) -> Any:
    """A Struct, ListValue or Value as JSON. NaN and Infinity, which JSON lacks (rows stored
    before requests were checked, a model's reply), become null instead of failing the response
    (protobuf's own MessageToDict raises on them)."""
    if isinstance(message, struct_pb2.Struct):
        return {key: _plain_json(value) for key, value in message.fields.items()}
    if isinstance(message, struct_pb2.ListValue):
        return [_plain_json(value) for value in message.values]
    kind = message.WhichOneof("kind")
    if kind == "number_value":
        number = message.number_value
        return number if math.isfinite(number) else None
    if kind in ("struct_value", "list_value"):
        return _plain_json(getattr(message, kind))
    return None if kind in (None, "null_value") else getattr(message, kind)


def _fields(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {}
    descriptor = message.DESCRIPTOR
    for oneof in _real_oneofs(descriptor):
        arm = message.WhichOneof(oneof.name)
        if arm is not None:
            out[oneof.name] = _field_value(message, _field(descriptor, arm))
    for field, has_presence in _plain_fields(descriptor):
        if has_presence and not message.HasField(field.name):
            continue
        value = _field_value(message, field)
        if value is not None:
            out[field.json_name] = value
    return out


def _union(message: Message, oneof: OneofDescriptor) -> Any:
    arm = message.WhichOneof(oneof.name)
    if arm is None:
        return None
    field = _field(message.DESCRIPTOR, arm)
    if _is_discriminated(oneof):
        key = "role" if oneof.name == "role" else "type"
        inner = to_json(getattr(message, arm))
        return {key: arm.replace("_", "-"), **inner}
    return _field_value(message, field)


def _field_value(message: Message, field: FieldDescriptor) -> Any:
    value = getattr(message, field.name)
    if _is_map(field):
        entry = _field(field.message_type, "value")
        return {key: _single(entry, v) for key, v in value.items()}
    if field.is_repeated:
        return [_single(field, item) for item in value]
    return _single(field, value)


def _single(field: FieldDescriptor, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        wrapped = _wrapped_field(field.message_type)
        return _field_value(value, wrapped) if wrapped else to_json(value)
    if field.type == FieldDescriptor.TYPE_ENUM:
        return enum_text(field.enum_type, value) if field.enum_type else None
    if field.type == FieldDescriptor.TYPE_BYTES:
        return value.hex()
    return value


def _field(descriptor: Any, name: str) -> FieldDescriptor:
    field: FieldDescriptor = descriptor.fields_by_name[name]
    return field


@cache
def _plain_fields(descriptor: Descriptor) -> tuple[tuple[FieldDescriptor, bool], ...]:
    """The fields outside real oneofs, each with whether it is written only when set."""
    return tuple(
        (f, f.has_presence and not f.is_repeated)
        for f in descriptor.fields
        if not _in_real_oneof(f)
    )


@cache
def _is_map(field: FieldDescriptor) -> bool:
    return (
        field.is_repeated
        and field.message_type is not None
        and field.message_type.GetOptions().map_entry
    )


def _in_real_oneof(field: FieldDescriptor) -> bool:
    oneof = field.containing_oneof
    return oneof is not None and not _synthetic(oneof)


def _synthetic(oneof: OneofDescriptor) -> bool:
    """proto3 `optional` fields sit in a synthetic oneof named after them."""
    return len(oneof.fields) == 1 and oneof.name == f"_{oneof.fields[0].name}"


@cache
def _real_oneofs(descriptor: Descriptor) -> tuple[OneofDescriptor, ...]:
    return tuple(o for o in descriptor.oneofs if not _synthetic(o))


@cache
def _sole_oneof(descriptor: Descriptor) -> OneofDescriptor | None:
    """The oneof that is the whole message, if it is."""
    oneofs = _real_oneofs(descriptor)
    if len(oneofs) == 1 and len(oneofs[0].fields) == len(descriptor.fields):
        return oneofs[0]
    return None


@cache
def _is_discriminated(oneof: OneofDescriptor) -> bool:
    return all(f.message_type is not None for f in oneof.fields)


@cache
def _wrapped_field(descriptor: Descriptor) -> FieldDescriptor | None:
    """The one repeated or map field of a wrapper message such as `UserContentParts`."""
    if len(descriptor.fields) == 1 and descriptor.fields[0].is_repeated:
        return descriptor.fields[0]
    return None
