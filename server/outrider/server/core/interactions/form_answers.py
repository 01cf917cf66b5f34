"""Checks a caller's form-data answer against the request it answers, before anything is filled."""

from __future__ import annotations

from outrider.server.core.errors import FieldViolation, InvalidArgument, quoted
from outrider.v1 import automate_events_pb2 as ae

MAX_VALUE_CHARS = 10_000  # what one form field gets typed into it


def validate_form_answer(
    request: ae.InteractiveFormDataRequest, values: list[tuple[str, str]]
) -> None:
    """Raises InvalidArgument naming every field of the answer that cannot be used."""
    fields = {f.ref: f for f in request.fields}
    violations: list[FieldViolation] = []
    seen: set[str] = set()
    for index, (ref, value) in enumerate(values):
        violations.extend(_check_value(index, ref, value, fields.get(ref), ref in seen))
        seen.add(ref)
    for ref, spec in fields.items():
        if spec.required and ref not in seen:
            violations.append(
                FieldViolation("fields", f"required field {ref} ({spec.label}) has no value")
            )
    if violations:
        raise InvalidArgument(violations)


def validate_partial_answer(
    request: ae.InteractiveFormDataRequest, values: list[tuple[str, str]]
) -> None:
    """Like `validate_form_answer` for part of an answer: fields left out are not missing (the
    rest of the answer comes later), and a part names at least one field."""
    if not values:
        raise InvalidArgument(
            [FieldViolation("fields", "a partial answer names at least one field")]
        )
    fields = {f.ref: f for f in request.fields}
    violations: list[FieldViolation] = []
    seen: set[str] = set()
    for index, (ref, value) in enumerate(values):
        violations.extend(_check_value(index, ref, value, fields.get(ref), ref in seen))
        seen.add(ref)
    if violations:
        raise InvalidArgument(violations)


def _check_value(
    index: int, ref: str, value: str, spec: ae.FormField | None, duplicate: bool
) -> list[FieldViolation]:
    path = f"fields[{index}]"
    if spec is None:
        return [FieldViolation(f"{path}.ref", f"{quoted(ref)} is not a field of this request")]
    if len(value) > MAX_VALUE_CHARS:
        return [FieldViolation(f"{path}.value", f"must be at most {MAX_VALUE_CHARS:,} characters")]
    if "\x00" in value:
        return [FieldViolation(f"{path}.value", "must not contain NUL characters")]
    if duplicate:
        return [FieldViolation(f"{path}.ref", f"{ref} is given more than once")]
    if spec.required and not value:
        return [FieldViolation(f"{path}.value", f"{ref} ({spec.label}) is required")]
    if spec.options and value and value not in spec.options:
        allowed = ", ".join(spec.options)
        return [FieldViolation(f"{path}.value", f"must be one of: {allowed}")]
    return []
