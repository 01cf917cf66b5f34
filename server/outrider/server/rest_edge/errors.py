"""The one mapping from core errors to HTTP statuses and JSON bodies.

Body: {"error": {"status": 404, "reason": "NOT_FOUND", "message": "...",
                 "fieldViolations": [{"field": "task", "description": "..."}],  (400 only)
                 "retryAfter": 5.0}}                                           (429 only)
Refusals of an interaction that can no longer be answered are 410 Gone; other failed
preconditions are 409 Conflict. An Idempotency-Key sent again with a different request is 422
(as the IETF httpapi Idempotency-Key draft asks). Unknown exceptions are 500 with a generic message.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from starlette.responses import JSONResponse

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
from outrider.server.core.starts import KEY_REUSED

log = logging.getLogger(__name__)

_STATUSES: dict[type[OutriderError], int] = {
    InvalidArgument: 400,
    OutOfRange: 400,
    Unauthenticated: 401,
    PermissionDenied: 403,
    NotFound: 404,
    AlreadyExists: 409,
    FailedPrecondition: 409,
    ResourceExhausted: 429,
    Unimplemented: 501,
    Unavailable: 503,
}
GONE_REASONS = frozenset(
    {"INTERACTION_EXPIRED", "INTERACTION_ALREADY_RESOLVED", "INTERACTION_CANCELLED"}
)


def http_status(error: OutriderError) -> int:
    if isinstance(error, FailedPrecondition) and error.reason in GONE_REASONS:
        return 410
    if error.reason == KEY_REUSED:
        return 422
    for kind in type(error).__mro__:  # a subclass maps as the core class it refines
        if kind in _STATUSES:
            return _STATUSES[kind]
    return 500


def error_body(error: OutriderError) -> dict[str, Any]:
    detail: dict[str, Any] = {
        "status": http_status(error),
        "reason": error.reason,
        "message": error.message,
    }
    if isinstance(error, InvalidArgument):
        detail["fieldViolations"] = [
            {"field": v.field, "description": v.description} for v in error.violations
        ]
    if isinstance(error, ResourceExhausted):
        detail["retryAfter"] = error.retry_after
    return {"error": detail}


def error_response(error: OutriderError) -> JSONResponse:
    headers: dict[str, str] = {}
    if isinstance(error, ResourceExhausted):
        headers["Retry-After"] = str(math.ceil(error.retry_after))
    if isinstance(error, Unauthenticated):
        headers["WWW-Authenticate"] = 'Bearer realm="outrider"'
    return JSONResponse(error_body(error), http_status(error), headers=headers)


def internal_response() -> JSONResponse:
    body = {"error": {"status": 500, "reason": "INTERNAL", "message": "internal error"}}
    return JSONResponse(body, 500)
