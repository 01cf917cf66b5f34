"""Unexpected errors, as every edge tells them: the caller gets a generic message with an
incident id; the server log has the traceback under the same id, so an operator finds it from
what a caller reports. Never the exception's own text on the wire: it may quote a file, a query
or another tenant's data."""

from __future__ import annotations

import logging
import secrets
import sys


def incident(log: logging.Logger, what: str, *args: object) -> str:
    """Logs the exception being handled (if any), with its traceback, under a new incident id
    (returned).
    `what` and `args` say where it happened, as for `log.error`."""
    ident = secrets.token_hex(8)
    log.error(f"{what} (incident %s)", *args, ident, exc_info=sys.exc_info()[0] is not None)
    return ident


def internal_message(ident: str) -> str:
    """What a caller is told of an unexpected error."""
    return f"internal error (incident {ident}); the server log has the details"
