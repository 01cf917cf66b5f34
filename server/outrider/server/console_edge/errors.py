"""Core errors as console responses: a page (or, for htmx, a fragment) saying what went wrong,
with the HTTP status of the core's table (the one the REST edge uses)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from outrider.server.console_edge.templating import Pages
from outrider.server.core.error_statuses import http_status
from outrider.server.core.errors import OutriderError
from outrider.server.core.interactions.answer_links import without_token
from outrider.server.telemetry.incidents import incident

log = logging.getLogger(__name__)

Endpoint = Callable[[Request], Awaitable[Response]]


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
            shown_path = without_token(request.url.path)  # an answer link's token is a secret
            ident = incident(log, "unexpected error in console %s %s", request.method, shown_path)
            message = f"Something went wrong (incident {ident}); the server log has the details."
            return error_page(pages, request, 500, message, "INTERNAL")

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
