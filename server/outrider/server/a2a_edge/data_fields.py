"""A message's data read into a contract message field by field: a bad value is named by its
field in the contract's terms (`message.data.max_iterations`) and told in words, never in the
JSON parser's. Fields go by their JSON names (`maxIterations`), or their own (`max_iterations`).
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from outrider.server.core.errors import FieldViolation

_WELL_KNOWN = {
    "google.protobuf.Struct": "a JSON object",
    "google.protobuf.Value": "a JSON value",
    "google.protobuf.Duration": 'a duration such as "30s"',
    "google.protobuf.Timestamp": 'a time such as "2026-05-01T12:00:00Z"',
}
_NUMBERS = {
    FieldDescriptor.TYPE_DOUBLE: "a number",
    FieldDescriptor.TYPE_FLOAT: "a number",
    FieldDescriptor.TYPE_BOOL: "true or false",
    FieldDescriptor.TYPE_STRING: "text",
    FieldDescriptor.TYPE_BYTES: "base64 text",
}


def read_fields(target: Message, data: object, where: str) -> list[FieldViolation]:
    """Reads `data` into `target`; the fields that could not be read (the others are read)."""
    violations: list[FieldViolation] = []
    _read(target, data, where, violations)
    return violations


def _read(target: Message, data: object, where: str, violations: list[FieldViolation]) -> None:
    if not isinstance(data, dict):
        violations.append(FieldViolation(where, "must be a JSON object"))
        return
    descriptor: Any = target.DESCRIPTOR  # the C (upb) or Python descriptor: the same API
    for key, value in data.items():
        field = descriptor.fields_by_camelcase_name.get(key) or descriptor.fields_by_name.get(key)
        if field is None:
            known = ", ".join(f.json_name for f in descriptor.fields)
            violations.append(FieldViolation(f"{where}.{key}", f"is not a field here ({known})"))
        elif _is_plain_message(field) and isinstance(value, dict):
            _read(getattr(target, field.name), value, f"{where}.{field.name}", violations)
        else:
            _read_value(target, field, value, f"{where}.{field.name}", violations)


def _read_value(
    target: Message,
    field: FieldDescriptor,
    value: Any,
    where: str,
    violations: list[FieldViolation],
) -> None:
    one = type(target)()  # a field at a time: a bad one leaves nothing behind
    try:
        json_format.ParseDict({field.json_name: value}, one)
    except json_format.ParseError:
        violations.append(FieldViolation(where, f"must be {_expected(field)}"))
        return
    target.MergeFrom(one)


def _is_plain_message(field: FieldDescriptor) -> bool:
    kind = field.message_type
    return (
        kind is not None
        and not field.is_repeated
        and kind.full_name not in _WELL_KNOWN
        and not kind.GetOptions().map_entry
    )


def _expected(field: FieldDescriptor) -> str:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        return "a JSON object"
    one = _one(field)
    if not field.is_repeated:
        return one
    return "a list of texts" if one == "text" else f"a list, each item {one}"


def _one(field: FieldDescriptor) -> str:
    if field.enum_type is not None:
        names = [v.name for v in field.enum_type.values if v.number != 0]
        return "one of: " + ", ".join(names)
    if field.message_type is not None:
        return _WELL_KNOWN.get(field.message_type.full_name, "a JSON object")
    return _NUMBERS.get(field.type, "a whole number")
