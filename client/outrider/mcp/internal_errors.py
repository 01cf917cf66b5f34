"""An unexpected exception in an MCP request answers -32603 with an incident id; its text and
traceback go only to the log, under that id (the SDK alone would send code 0 with the exception's
text, which may quote a file, a query or another tenant's data). Both doors of the shared server
have it: /mcp in the Outrider server and `outrider mcp` over stdio."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from pydantic import ValidationError

from mcp.server import ServerRequestContext
from mcp.server.context import CallNext
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR

log = logging.getLogger(__name__)


async def internal_errors(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
    try:
        return await call_next(ctx)
    except (MCPError, ValidationError):  # the SDK's own answers: their codes and words
        raise
    except Exception:
        if ctx.request_id is None:  # a notification: nobody to answer
            raise
        ident = secrets.token_hex(8)
        log.error("MCP %s failed (incident %s)", ctx.method, ident, exc_info=True)
        message = f"internal error (incident {ident}); the server log has the details"
        raise MCPError(INTERNAL_ERROR, message, {"incident": ident}) from None
