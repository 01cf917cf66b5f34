"""Opaque page tokens: a (create_us, id) cursor, base64-encoded so callers don't build them."""

from __future__ import annotations

import base64
import binascii
import json

from outrider.server.core.errors import InvalidArgument

MAX_PAGE_SIZE = 1000
DEFAULT_PAGE_SIZE = 50


def page_size(requested: int, field: str = "page_size") -> int:
    if requested < 0 or requested > MAX_PAGE_SIZE:
        raise InvalidArgument.single(field, f"must be between 0 and {MAX_PAGE_SIZE}")
    return requested or DEFAULT_PAGE_SIZE


def encode_token(create_us: int, item_id: str) -> str:
    raw = json.dumps([create_us, item_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_token(token: str, field: str = "page_token") -> tuple[int, str] | None:
    """None for an empty token; InvalidArgument for anything we did not issue."""
    if not token:
        return None
    try:
        padded = token + "=" * (-len(token) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise InvalidArgument.single(field, "is not a token this server issued") from None
    if not (isinstance(value, list) and len(value) == 2):
        raise InvalidArgument.single(field, "is not a token this server issued")
    create_us, item_id = value
    if not isinstance(create_us, int) or not isinstance(item_id, str):
        raise InvalidArgument.single(field, "is not a token this server issued")
    return create_us, item_id
