"""Core errors as HTTP responses with JSON bodies.

Body: {"error": {"status": 404, "reason": "NOT_FOUND", "message": "...",
                 "fieldViolations": [{"field": "task", "description": "..."}],  (400 only)
                 "retryAfter": 5.0,                                            (429 only)
                 "metadata": {"askedAgainAs": "interactions/..."}}}      (when the error has some)
The statuses are the core's table (core/error_statuses.py): an interaction that can no longer be
answered is 410 Gone, an Idempotency-Key sent again with a different request 422. Unknown
exceptions are 500 with a generic message.
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
    if error.metadata:
        detail["metadata"] = dict(error.metadata)
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
