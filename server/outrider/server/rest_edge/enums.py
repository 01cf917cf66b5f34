"""Enum values as JSON text: the contract's (outrider.v1.wire_value) literal where it has one
("content-filter", "balanced"), else the value's name without its prefix, lower-cased
("running", "approve")."""

from __future__ import annotations

from functools import cache

from google.protobuf.descriptor import EnumDescriptor

from outrider.server.core.events.names import wire_literals


@cache
def _texts(enum: EnumDescriptor) -> dict[int, str]:
    prefix = _prefix(enum)
    literals = wire_literals(enum)
    return {
        number: literals[number] or enum.values_by_number[number].name.removeprefix(prefix).lower()
        for number in literals
    }


def _prefix(enum: EnumDescriptor) -> str:
    zero = enum.values_by_number.get(0)
    return zero.name.removesuffix("UNSPECIFIED") if zero is not None else ""


def enum_text(enum: EnumDescriptor, number: int) -> str | None:
    """The JSON text of `number`, None for the zero (unspecified) or an unknown value."""
    return _texts(enum).get(number)


def enum_number(enum: EnumDescriptor, text: str) -> int | None:
    """The number whose JSON text is `text` (case-insensitive), None when there is none."""
    wanted = text.lower()
    for number, candidate in _texts(enum).items():
        if candidate.lower() == wanted:
            return number
    return None


def enum_choices(enum: EnumDescriptor) -> list[str]:
    return list(_texts(enum).values())
