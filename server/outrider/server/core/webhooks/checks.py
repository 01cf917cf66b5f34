"""Checks of what a caller asks of an endpoint, in the caller's field paths: a URL the egress
guard lets through (asked when the endpoint is made or moved, and again at every attempt), event
types the server knows, a short description."""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from outrider.server.core.errors import FieldViolation, InvalidArgument
from outrider.server.core.webhooks.egress import Egress
from outrider.server.core.webhooks.notices import EVENT_TYPES

MAX_URL = 2048
MAX_DESCRIPTION = 200
_FORBIDDEN = re.compile(r"[\s\x00-\x1f\x7f]")


def url_problem(url: str, https_only: bool) -> str | None:
    """What is wrong with the URL's shape, or None."""
    if not url:
        return "is required"
    if len(url) > MAX_URL:
        return f"must be at most {MAX_URL} characters"
    if _FORBIDDEN.search(url):
        return "must not contain spaces or control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  # raises ValueError for a port out of range
    except ValueError:
        return "must be an absolute http or https URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an absolute http or https URL"
    if parts.username or parts.password:
        return "must not hold a user name or password (use the signing secret)"
    if https_only and parts.scheme != "https":
        return "must be https (OUTRIDER_WEBHOOKS_HTTPS_ONLY)"
    return None


async def check_url(url: str, egress: Egress, https_only: bool, field: str) -> None:
    """InvalidArgument (DESTINATION_BLOCKED for the guard's refusal) unless the URL is usable."""
    problem = url_problem(url, https_only)
    if problem is not None:
        raise InvalidArgument.single(field, problem)
    refused = await egress.refusal(url)
    if refused is not None:
        error = InvalidArgument.single(field, f"is refused by the egress guard: {refused}")
        error.reason = "DESTINATION_BLOCKED"
        raise error


def check_types(types: Sequence[str], field: str) -> tuple[str, ...]:
    """The event types without repeats, in the order given; InvalidArgument for unknown ones."""
    violations = [
        FieldViolation(
            f"{field}[{index}]", f"is not an event type; known: {', '.join(EVENT_TYPES)}"
        )
        for index, name in enumerate(types)
        if name not in EVENT_TYPES
    ]
    if violations:
        raise InvalidArgument(violations)
    return tuple(dict.fromkeys(types))


def check_description(text: str, field: str) -> str:
    """The description with its runs of white space (newlines too) made single spaces."""
    if len(text) > MAX_DESCRIPTION:
        raise InvalidArgument.single(field, f"must be at most {MAX_DESCRIPTION} characters")
    return " ".join(text.split())
