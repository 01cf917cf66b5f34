"""What each core error is on the wire: its google.rpc code (gRPC) and its HTTP status, in the one
table every edge reads (gRPC, REST, the console, and any edge to come).

HTTP refines two cases the gRPC code cannot tell apart: an interaction that can no longer be
answered is 410 Gone (not 409), and an idempotency key sent again with a different request is
422 (as the IETF httpapi Idempotency-Key draft asks). An error outside the table is INTERNAL/500.
"""

from __future__ import annotations

from dataclasses import dataclass

from outrider.server.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    OutOfRange,
    OutriderError,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
    Unimplemented,
)
from outrider.server.core.request_ids import KEY_REUSED


@dataclass(frozen=True)
class ErrorStatus:
    rpc_code: str  # a google.rpc.Code name, which grpc.StatusCode names too
    http: int


TABLE: dict[type[OutriderError], ErrorStatus] = {
    InvalidArgument: ErrorStatus("INVALID_ARGUMENT", 400),
    OutOfRange: ErrorStatus("OUT_OF_RANGE", 400),
    Unauthenticated: ErrorStatus("UNAUTHENTICATED", 401),
    PermissionDenied: ErrorStatus("PERMISSION_DENIED", 403),
    NotFound: ErrorStatus("NOT_FOUND", 404),
    AlreadyExists: ErrorStatus("ALREADY_EXISTS", 409),
    FailedPrecondition: ErrorStatus("FAILED_PRECONDITION", 409),
    ResourceExhausted: ErrorStatus("RESOURCE_EXHAUSTED", 429),
    Unimplemented: ErrorStatus("UNIMPLEMENTED", 501),
    Unavailable: ErrorStatus("UNAVAILABLE", 503),
}
INTERNAL = ErrorStatus("INTERNAL", 500)
GONE_REASONS = frozenset(
    {
        "INTERACTION_EXPIRED",
        "INTERACTION_ALREADY_RESOLVED",
        "INTERACTION_CANCELLED",
        "INTERACTION_ASKED_AGAIN",
    }
)


def status_of(error: OutriderError) -> ErrorStatus:
    for kind in type(error).__mro__:  # a subclass maps as the core class it refines
        if kind in TABLE:
            return TABLE[kind]
    return INTERNAL


def http_status(error: OutriderError) -> int:
    if isinstance(error, FailedPrecondition) and error.reason in GONE_REASONS:
        return 410
    if error.reason == KEY_REUSED:
        return 422
    return status_of(error).http
