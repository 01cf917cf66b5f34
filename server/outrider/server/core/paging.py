"""Opaque, tamper-evident page tokens: a (create_us, id) cursor signed with the server's key.

A token is base64url(JSON cursor) "." base64url(HMAC-SHA256 over the listing and the cursor).
The signature is checked before the cursor is parsed, so a forged or edited token (huge numbers,
deep nesting, wrong types) is refused as a whole, and a token of one listing does not page another.
A token names the filters of the call that got it (a short digest; none when unfiltered, the
format of tokens from before filters were bound): a next page asked for with other filters would
mix two listings, so it is refused.
The key comes from OUTRIDER_PAGE_TOKEN_SECRET (shared by replicas), else from a random key file
made once in the data directory: tokens stay valid across restarts.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import TypeVar

from google.protobuf.message import Message

from outrider.server.core.errors import InvalidArgument

MAX_PAGE_SIZE = 1000
DEFAULT_PAGE_SIZE = 50
# A page stops growing at this many encoded bytes (it always holds one item), so that large runs
# cannot make a page exceed what clients accept (gRPC's default is 4 MiB) for every caller.
MAX_PAGE_BYTES = 2 * 1024 * 1024
KEY_FILE_NAME = "page-token.key"
MAX_TOKEN_CHARS = 512  # what we issue is under 150; longer is not ours
_SIGNATURE_BYTES = 16
_MAX_CREATE_US = 2**63 - 1
_NOT_OURS = "is not a token this server issued"
_OTHER_FILTERS = (
    "was issued for other filters than this call's: send the same filters as the call that "
    "returned it, or start the listing again without a page token"
)
_FILTER_TAG_BYTES = 6
_Item = TypeVar("_Item", bound=Message)


def page_size(requested: int, field: str = "page_size") -> int:
    if requested < 0 or requested > MAX_PAGE_SIZE:
        raise InvalidArgument.single(field, f"must be between 0 and {MAX_PAGE_SIZE}")
    return requested or DEFAULT_PAGE_SIZE


def within_bytes(items: list[_Item], budget: int = MAX_PAGE_BYTES) -> list[_Item]:
    """The longest prefix of `items` whose encoded size stays within `budget` (at least one)."""
    total = 0
    for count, item in enumerate(items):
        total += item.ByteSize()
        if total > budget and count:
            return items[:count]
    return items


def filter_text(**filters: object) -> str:
    """A call's filters as the canonical text page tokens are bound to: the set ones by name,
    a list as its sorted distinct items; "" when none is set."""
    parts = []
    for name, value in sorted(filters.items()):
        if isinstance(value, list | tuple | set):
            value = ",".join(sorted({str(item) for item in value}))
        if value:
            parts.append(f"{name}={value}")
    return ";".join(parts)


class PageTokens:
    """Issues and checks the page tokens of the listings named by `listing` ("runs", ...)."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def encode(self, listing: str, create_us: int, item_id: str, filters: str = "") -> str:
        """`filters`: the call's filters in a canonical text ("" when unfiltered)."""
        cursor: list[object] = [create_us, item_id]
        if filters:
            cursor.append(_filter_tag(filters))
        payload = b64url(json.dumps(cursor, separators=(",", ":")).encode())
        return f"{payload}.{b64url(self._sign(listing, payload))}"

    def decode(
        self, listing: str, token: str, field: str = "page_token", filters: str = ""
    ) -> tuple[int, str] | None:
        """None for an empty token; InvalidArgument for anything this key did not sign, and for
        a token issued for other `filters`."""
        if not token:
            return None
        payload, dot, signature = token.partition(".")
        if len(token) > MAX_TOKEN_CHARS or not dot or not token.isascii():
            raise InvalidArgument.single(field, _NOT_OURS)
        try:
            signed = hmac.compare_digest(unb64url(signature), self._sign(listing, payload))
            value = json.loads(unb64url(payload)) if signed else None
        except (binascii.Error, ValueError):
            raise InvalidArgument.single(field, _NOT_OURS) from None
        if not (isinstance(value, list) and _is_cursor(value)):
            raise InvalidArgument.single(field, _NOT_OURS)
        issued_for = value[2] if len(value) == 3 else ""
        if issued_for != (_filter_tag(filters) if filters else ""):
            raise InvalidArgument.single(field, _OTHER_FILTERS)
        return value[0], value[1]

    def _sign(self, listing: str, payload: str) -> bytes:
        message = f"{listing}\n{payload}".encode()
        return hmac.new(self._key, message, hashlib.sha256).digest()[:_SIGNATURE_BYTES]


def load_key(secret: str | None, data_dir: Path) -> bytes:
    """The signing key: derived from `secret` when set, else the data directory's key file,
    created (owner-only, 0600) on first use. Replicas sharing a directory share its key."""
    if secret:
        return hashlib.sha256(b"outrider page tokens\n" + secret.encode()).digest()
    path = data_dir / KEY_FILE_NAME
    if not path.exists():
        _create_key_file(path)
    return _read_key(path)


def derived_key(root: bytes, purpose: str) -> bytes:
    """A key for one purpose (answer links, console sessions) from the signing key of
    `load_key`: replicas that share that key share these, and none of them signs page tokens."""
    return hmac.new(root, f"outrider {purpose}".encode(), hashlib.sha256).digest()


def _create_key_file(path: Path) -> None:
    """Writes a new key beside `path` and links it into place: a replica starting at the same
    moment either wins or reads the winner's whole key, never a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_hex(32))
        os.link(draft, path)
    except FileExistsError:
        pass  # another process made it first: its key is the one
    finally:
        draft.unlink()


def _read_key(path: Path) -> bytes:
    text = path.read_text().strip()
    if len(text) < 32:
        raise ValueError(f"{path} holds no page-token key; delete it to make a new one")
    return text.encode()


def _filter_tag(filters: str) -> str:
    return b64url(hashlib.sha256(filters.encode()).digest()[:_FILTER_TAG_BYTES])


def _is_cursor(value: list[object]) -> bool:
    if len(value) not in (2, 3) or (len(value) == 3 and not isinstance(value[2], str)):
        return False
    create_us, item_id = value[:2]
    return (
        isinstance(create_us, int)
        and not isinstance(create_us, bool)
        and 0 <= create_us <= _MAX_CREATE_US
        and isinstance(item_id, str)
        and len(item_id) <= 64
    )


def b64url(raw: bytes) -> str:
    """URL-safe base64 without padding (page tokens, relay tokens)."""
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    """The inverse of `b64url`."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
