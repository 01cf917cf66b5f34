"""Core errors as HTTP responses with JSON bodies.

Body: {"error": {"status": 404, "reason": "NOT_FOUND", "message": "...",
                 "fieldViolations": [{"field": "task", "description": "..."}],  (400 only)
                 "retryAfter": 5.0}}                                           (429 only)
The statuses are the core's table (core/error_statuses.py): an interaction that can no longer be
answered is 410 Gone, an Idempotency-Key sent again with a different request 422. Unknown
exceptions are 500 with a generic message and an incident id (telemetry/incidents.py).
"""

from __future__ import annotations

import logging
import math
from typing import Any

from starlette.responses import JSONResponse

from outrider.server.core.error_statuses import http_status
from outrider.server.core.errors import (
    InvalidArgument,
    OutriderError,
    ResourceExhausted,
    Unauthenticated,
)
from outrider.server.telemetry.incidents import internal_message

log = logging.getLogger(__name__)


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


def internal_response(ident: str) -> JSONResponse:
    message = internal_message(ident)
    body = {"error": {"status": 500, "reason": "INTERNAL", "message": message, "incident": ident}}
    return JSONResponse(body, 500)


def body_refusal(status: int, reason: str, message: str) -> JSONResponse:
    """A request body refused before it was read whole (rest_edge/body_limits.py)."""
    return JSONResponse({"error": {"status": status, "reason": reason, "message": message}}, status)
