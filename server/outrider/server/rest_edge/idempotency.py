"""The Idempotency-Key request header of the routes that start runs (the IETF httpapi draft "The
Idempotency-Key HTTP Header Field"): a structured-field String such as
`Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"`; a bare token, which many clients send,
is taken too. Absent, a start is not idempotent (as before; Tabstack's SDK sends none). The
core's semantics (`core.starts`) apply, with a replay marked by `Idempotent-Replayed: true` and a
key reused for another request answered 422."""

from __future__ import annotations

import re

from starlette.requests import Request

from outrider.server.core.errors import InvalidArgument
from outrider.server.core.request_ids import MAX_KEY_CHARS, check_request_id

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
# RFC 8941 sf-string: printable ASCII in quotes, with \" and \\ escaped.
_SF_STRING = re.compile(r'"((?:[ !#-\[\]-~]|\\["\\])*)"')
_BARE = re.compile(r"[!#-+\--~]+")  # visible ASCII but for a quote and a comma (a list)
# The header's syntax for the OpenAPI document (ECMA-262 and Python read it alike).
KEY_PATTERN = f"^({_SF_STRING.pattern}|{_BARE.pattern})$"
_ESCAPED = re.compile(r'\\(["\\])')
_UUID_CHARS = 36


def idempotency_key(request: Request) -> str:
    """The key of the request, "" without the header; InvalidArgument for a malformed one."""
    values = request.headers.getlist(HEADER)
    if not values:
        return ""
    if len(values) > 1:
        raise InvalidArgument.single(HEADER, "must be sent once")
    return _parsed(values[0].strip())


def _parsed(value: str) -> str:
    quoted = _SF_STRING.fullmatch(value)
    key = _ESCAPED.sub(r"\1", quoted.group(1)) if quoted else value
    if not (quoted or _BARE.fullmatch(value)) or not 0 < len(key) <= MAX_KEY_CHARS:
        raise InvalidArgument.single(
            HEADER,
            f"must be a quoted string of 1 to {MAX_KEY_CHARS} printable ASCII characters, "
            'e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324"',
        )
    if len(key) == _UUID_CHARS:  # a UUID names the same key in either case, as on gRPC
        try:
            return check_request_id(key, HEADER)
        except InvalidArgument:
            return key
    return key
