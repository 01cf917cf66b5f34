"""Core errors as console responses: a page (or, for htmx, a fragment) saying what went wrong,
with the HTTP status the REST edge would use."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from outrider.server.console_edge.templating import Pages
from outrider.server.core.errors import (
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

log = logging.getLogger(__name__)

Endpoint = Callable[[Request], Awaitable[Response]]

_STATUSES: dict[type[OutriderError], int] = {
    InvalidArgument: 400,
    OutOfRange: 400,
    Unauthenticated: 401,
    PermissionDenied: 403,
    NotFound: 404,
    FailedPrecondition: 409,
    ResourceExhausted: 429,
    Unimplemented: 501,
    Unavailable: 503,
}
_GONE = frozenset({"INTERACTION_EXPIRED", "INTERACTION_ALREADY_RESOLVED", "INTERACTION_CANCELLED"})


def http_status(error: OutriderError) -> int:
    if isinstance(error, FailedPrecondition) and error.reason in _GONE:
        return 410
    for kind in type(error).__mro__:
        if kind in _STATUSES:
            return _STATUSES[kind]
    return 500


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def shown(pages: Pages, endpoint: Endpoint) -> Endpoint:
    """Core errors become an error page or fragment; anything else a generic one and a log line
    (never a stack trace in the page)."""

    @functools.wraps(endpoint)
    async def wrapper(request: Request) -> Response:
        try:
            return await endpoint(request)
        except OutriderError as error:
            return error_page(pages, request, http_status(error), error.message, error.reason)
        except Exception:
            log.exception("unexpected error in console %s %s", request.method, request.url.path)
            return error_page(pages, request, 500, "Something went wrong; see the server log.")

    return wrapper


def error_page(
    pages: Pages, request: Request, status: int, message: str, reason: str = ""
) -> Response:
    template = "error_fragment.html" if is_htmx(request) else "error.html"
    response = pages.page(request, template, status, message=message, reason=reason, status=status)
    if is_htmx(request):
        # htmx swaps nothing for an error status unless told: the fragment goes to the page's
        # message area instead of replacing the form the person was filling in.
        response.headers["HX-Retarget"] = "#messages"
        response.headers["HX-Reswap"] = "innerHTML"
    return response
