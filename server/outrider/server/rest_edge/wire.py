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
from collections.abc import Callable
from functools import cache, partial
from typing import Any

from google.protobuf import struct_pb2, timestamp_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor, OneofDescriptor
from google.protobuf.message import Message

from outrider.server.rest_edge.enums import enum_text
from outrider.v1 import options_pb2

_PLAIN_JSON = frozenset(
    {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}
)
_TIMESTAMP = "google.protobuf.Timestamp"


def to_json(message: Message, opted_in: bool = False) -> Any:
    """The Tabstack JSON value of `message`; with `opted_in`, also the fields marked
    (outrider.v1.rest_opt_in), which go beyond the schema of a message that mirrors it."""
    return _encoder(message.DESCRIPTOR, opted_in)(message)


Encode = Callable[[Any], Any]


@cache
def _encoder(descriptor: Descriptor, opted_in: bool) -> Encode:
    """The function turning a message of this type into JSON, built once per type: an event
    stream converts thousands of messages of a few types, and walking the descriptor for each
    was a good part of what an event cost to send."""
    name = descriptor.full_name
    if name in _PLAIN_JSON:
        return _plain_json
    if name == _TIMESTAMP:
        return _timestamp_ms
    union = _sole_oneof(descriptor)
    if union is not None:
        return partial(_union, oneof=union, opted_in=opted_in)
    return _fields_encoder(descriptor, opted_in)


def _timestamp_ms(message: timestamp_pb2.Timestamp) -> float:
    return message.seconds * 1000 + message.nanos / 1e6


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


def _fields_encoder(descriptor: Descriptor, opted_in: bool) -> Encode:
    """A message of fields: each real oneof under its own name, then the plain fields under
    their JSON names; a field whose value converts to None is left out."""
    oneofs = tuple(
        (oneof.name, {f.name: _value_encoder(f, opted_in) or _same for f in oneof.fields})
        for oneof in _real_oneofs(descriptor)
    )
    plain = tuple(
        (field.name, field.json_name, has_presence, _value_encoder(field, opted_in))
        for field, has_presence in _plain_fields(descriptor)
        if opted_in or not _opt_in(field)
    )

    def encode(message: Message) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for oneof_name, arms in oneofs:
            arm = message.WhichOneof(oneof_name)
            if arm is not None:
                out[oneof_name] = arms[arm](getattr(message, arm))
        for name, key, has_presence, convert in plain:
            if has_presence and not message.HasField(name):
                continue
            value = getattr(message, name)
            if convert is not None:  # None: a scalar that is its own JSON
                value = convert(value)
                if value is None:
                    continue
            out[key] = value
        return out

    return encode


def _opt_in(field: FieldDescriptor) -> bool:
    """Marked (outrider.v1.rest_opt_in): beyond the schema of a message that mirrors it."""
    extension: Any = options_pb2.rest_opt_in  # typed by the stubs as an option of no message
    return bool(field.GetOptions().Extensions[extension])


def _same(value: Any) -> Any:
    return value


def _union(message: Message, oneof: OneofDescriptor, opted_in: bool) -> Any:
    arm = message.WhichOneof(oneof.name)
    if arm is None:
        return None
    field = _field(message.DESCRIPTOR, arm)
    if _is_discriminated(oneof):
        key = "role" if oneof.name == "role" else "type"
        inner = to_json(getattr(message, arm), opted_in)
        return {key: arm.replace("_", "-"), **inner}
    return _field_value(message, field, opted_in)


def _field_value(message: Message, field: FieldDescriptor, opted_in: bool) -> Any:
    value = getattr(message, field.name)
    convert = _value_encoder(field, opted_in)
    return value if convert is None else convert(value)


@cache
def _value_encoder(field: FieldDescriptor, opted_in: bool) -> Encode | None:
    """What turns the field's value (a map, a list or one value) into JSON; None when the
    value already is its JSON (a string, a number, a bool)."""
    single = _single_encoder(field, opted_in)
    if _is_map(field):
        entry = _single_encoder(_field(field.message_type, "value"), opted_in) or _same
        return lambda value: {key: entry(item) for key, item in value.items()}
    if field.is_repeated:
        each = single or _same
        return lambda value: [each(item) for item in value]
    return single


def _single_encoder(field: FieldDescriptor, opted_in: bool) -> Encode | None:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        wrapped = _wrapped_field(field.message_type)
        if wrapped is None:
            return partial(to_json, opted_in=opted_in)
        # Looked up when called, not now: a message type may contain itself.
        return lambda value: _field_value(value, wrapped, opted_in)
    if field.type == FieldDescriptor.TYPE_ENUM:
        enum = field.enum_type
        return (lambda _: None) if enum is None else partial(enum_text, enum)
    if field.type == FieldDescriptor.TYPE_BYTES:
        return bytes.hex
    return None


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
