"""Request ids of idempotent starts and session creates (AIP-155 on gRPC, the Idempotency-Key
header on REST), as every edge checks them, and what a start or a create returns. How a request
id makes a start idempotent is runs/idempotent_starts.py's, a create sessions/create_keys.py's."""

from __future__ import annotations

import re
from dataclasses import dataclass

from outrider.server.core.errors import AlreadyExists, InvalidArgument, quoted
from outrider.v1 import run_pb2, session_pb2

KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"  # the reason of a request id used for another request
MAX_KEY_CHARS = 255  # an Idempotency-Key header (gRPC request ids are UUIDs)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


@dataclass(frozen=True)
class Started:
    """What a start returns: the run, and whether an earlier start with the same key made it."""

    run: run_pb2.Run
    replayed: bool = False


@dataclass(frozen=True)
class Created:
    """What a session's create returns: the session, and whether an earlier create with the same
    key made it."""

    session: session_pb2.Session
    replayed: bool = False


def check_same_request(request_id: str, digests: tuple[str, str], made: tuple[str, str]) -> None:
    """A request id found taken: refused unless the earlier request's digest and this one's
    (`digests`) are the same. `made`: what the earlier request did and what a new one would make,
    e.g. ("started runs/abc", "run")."""
    if digests[0] != digests[1]:
        raise AlreadyExists(
            f"request id {request_id!r} already {made[0]} with a different request; use a new "
            f"request id for a new {made[1]}",
            reason=KEY_REUSED,
        )


def check_request_id(value: str, field: str) -> str:
    """An AIP-155 request id: "" (none) or a UUID in its 8-4-4-4-12 form, returned lower-cased
    so that the same UUID in either case is the same key."""
    if value and not _UUID.fullmatch(value):
        raise InvalidArgument.single(
            field,
            f"must be a UUID such as 3f2b8c1e-5d4a-4e7b-9c0d-2a6f8e1b7c3d, not {quoted(value)}",
        )
    return value.lower()
