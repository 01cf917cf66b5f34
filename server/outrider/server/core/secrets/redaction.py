"""One redactor per run: it knows each secret of the run and the forms a secret takes in text
leaving the harness (literal, percent-encoded in either hex case, `+` for a space, JSON-escaped),
and scrubs every string of every event, prompt and log line the run produces.

Secrets are values known from the moment they arrive (a `data` value marked secret, a password
field's value, anything the caller typed), never strings searched for later.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote_plus

from google.protobuf import json_format, struct_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

REDACTED = "[redacted]"
SECRET_KEY = re.compile(r"pass(word|code|phrase)?|secret|token|api[_-]?key|cvv|cvc|pin|otp", re.I)
_MIN_FREE_TEXT = 3  # shorter secrets are redacted only where they stand alone (a URL parameter)
# One parameter of a query string or fragment: key=value up to the next separator.
_URL_PARAM = re.compile(r"(?<=[?&#;])([^=&#;\s\"'<>]*=)([^&#;\s\"'<>]*)")


_PLACEHOLDER_TEXT = "{{secret:"


def secret_placeholder(path: str) -> str:
    return f"{_PLACEHOLDER_TEXT}{path}}}}}"


def _char_pattern(char: str) -> str:
    """Every way `char` may be written in a URL, a form body or a JSON string."""
    forms = [re.escape(char)]
    encoded = "".join(
        "%" + "".join(f"[{d.lower()}{d.upper()}]" if d.isalpha() else d for d in f"{byte:02x}")
        for byte in char.encode()
    )
    forms.append(encoded)
    if char == " ":
        forms.append(r"\+")
    if char in '"\\':
        forms.append(re.escape("\\" + char))
    if ord(char) > 0x7E:
        forms.append(re.escape(f"\\u{ord(char):04x}"))
    return forms[0] if len(forms) == 1 else f"(?:{'|'.join(forms)})"


class Redactor:
    """The secrets of one run and the one function every outgoing text passes through."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._pattern: re.Pattern[str] | None = None

    def add(self, value: str) -> None:
        if value and value not in self._values:
            self._values.add(value)
            long = sorted((v for v in self._values if len(v) >= _MIN_FREE_TEXT), key=len)
            alternatives = ["".join(map(_char_pattern, v)) for v in reversed(long)]
            self._pattern = re.compile("|".join(alternatives)) if alternatives else None

    def knows(self, value: str) -> bool:
        return value in self._values

    def __bool__(self) -> bool:
        return bool(self._values)

    def text(self, text: str) -> str:
        if not self._values or not text:
            return text
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        return _URL_PARAM.sub(self._param, text)

    def _param(self, match: re.Match[str]) -> str:
        value = match.group(2)
        return match.group(1) + REDACTED if unquote_plus(value) in self._values else match.group(0)

    def message(self, message: Message) -> None:
        """Redacts, in place, every string anywhere inside `message`."""
        if self._values:
            _scrub(message, self.text)


def _scrub(message: Message, redact: Any) -> None:
    for field, value in message.ListFields():
        if field.type == FieldDescriptor.TYPE_STRING:
            if field.is_repeated:
                value[:] = [redact(v) for v in value]
            else:
                setattr(message, field.name, redact(value))
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            _scrub_message_field(field, value, redact)


def _scrub_message_field(field: FieldDescriptor, value: Any, redact: Any) -> None:
    entry = field.message_type
    assert entry is not None
    if entry.GetOptions().map_entry:
        value_field = entry.fields_by_name["value"]
        for key in list(value):
            if value_field.type == FieldDescriptor.TYPE_STRING:
                value[key] = redact(value[key])
            elif value_field.type == FieldDescriptor.TYPE_MESSAGE:
                _scrub(value[key], redact)
    elif field.is_repeated:
        for item in value:
            _scrub(item, redact)
    else:
        _scrub(value, redact)


def holds_placeholders(data: struct_pb2.Struct) -> bool:
    """Whether `data` had secrets masked (their values then lived only in memory)."""
    return _PLACEHOLDER_TEXT in json_format.MessageToJson(data)


def mask_secret_data(data: struct_pb2.Struct) -> tuple[struct_pb2.Struct, dict[str, str]]:
    """`data` with every secret value replaced by its placeholder, and the secrets by path."""
    found: dict[str, str] = {}
    masked = struct_pb2.Struct()
    masked.update(mask_secrets(json_format.MessageToDict(data), found))
    return masked, found


def mask_secrets(data: Any, found: dict[str, str], path: str = "") -> Any:
    """`data` (plain JSON) with secrets replaced by placeholders; `found` gets path -> value.

    A secret is any value written as {"$secret": value} and any scalar under a key naming one
    ("password", "api_key", "pin", ...)."""
    if isinstance(data, dict):
        if set(data) == {"$secret"}:
            found[path] = str(data["$secret"])
            return secret_placeholder(path)
        return {key: _mask_child(key, value, found, path) for key, value in data.items()}
    if isinstance(data, list):
        return [mask_secrets(v, found, f"{path}[{i}]") for i, v in enumerate(data)]
    return data


def _mask_child(key: str, value: Any, found: dict[str, str], path: str) -> Any:
    child = f"{path}.{key}" if path else key
    scalar = isinstance(value, str | int | float) and not isinstance(value, bool)
    if scalar and SECRET_KEY.search(key):
        found[child] = _scalar_text(value)
        return secret_placeholder(child)
    return mask_secrets(value, found, child)


def _scalar_text(value: str | float) -> str:
    """A number as the caller wrote it: 1234, not 1234.0 (Struct keeps numbers as doubles)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
