"""The one table from the core's errors to A2A's, applied to every operation of the handler.

A2A errors raised by the edge itself pass through; an unknown exception becomes a generic
internal error with an incident id (its text only in the server log, under that id), never a
stack trace or the exception's message on the wire.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from a2a.utils.errors import (
    A2AError,
    InternalError,
    InvalidParamsError,
    InvalidRequestError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from outrider.server.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    OutOfRange,
    OutriderError,
    PermissionDenied,
    Unauthenticated,
    Unimplemented,
)
from outrider.server.telemetry.incidents import incident, internal_message

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


def a2a_error(error: OutriderError) -> A2AError:
    """The A2A error a core error is told as, keeping its message and reason."""
    data: dict[str, Any] = {"reason": error.reason}
    if isinstance(error, NotFound):
        return TaskNotFoundError(error.message, data)
    if isinstance(error, InvalidArgument | OutOfRange):
        violations = getattr(error, "violations", ())
        data["errors"] = [{"field": v.field, "message": v.description} for v in violations]
        return InvalidParamsError(error.message, data)
    if isinstance(error, FailedPrecondition | Unimplemented):
        return UnsupportedOperationError(error.message, data)
    if isinstance(error, PermissionDenied | Unauthenticated):
        return InvalidRequestError(error.message, data)
    return InternalError(error.message, data)  # busy, shutting down: the message says which


def unexpected(operation: str) -> InternalError:
    """The exception being handled, logged under an incident id the caller is told."""
    ident = incident(log, "A2A %s failed", operation)
    return InternalError(internal_message(ident), {"incident": ident})


def translated(call: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    @functools.wraps(call)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await call(*args, **kwargs)
        except A2AError:
            raise
        except OutriderError as error:
            raise a2a_error(error) from None
        except Exception:
            raise unexpected(call.__name__) from None

    return wrapper


def translated_stream(
    call: Callable[P, AsyncGenerator[T, None]],
) -> Callable[P, AsyncGenerator[T, None]]:
    @functools.wraps(call)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> AsyncGenerator[T, None]:
        stream = call(*args, **kwargs)
        try:
            async for item in stream:
                yield item
        except A2AError:
            raise
        except OutriderError as error:
            raise a2a_error(error) from None
        except Exception:
            raise unexpected(call.__name__) from None
        finally:
            await stream.aclose()

    return wrapper


Endpoint = Callable[[Request], Awaitable[Response]]


def masked(endpoint: Endpoint) -> Endpoint:
    """The dispatcher's own internal errors told as ours: an exception inside the SDK comes back
    as -32603 with the exception's text and no data; the caller gets the generic message and an
    incident id instead, the log the text under that id (the SDK logged its traceback)."""

    @functools.wraps(endpoint)
    async def answer(request: Request) -> Response:
        response = await endpoint(request)
        if not isinstance(response, JSONResponse) or b"-32603" not in response.body:
            return response
        body = json.loads(bytes(response.body))
        error = body.get("error") if isinstance(body, dict) else None
        if not isinstance(error, dict) or error.get("code") != -32603 or error.get("data"):
            return response
        ident = incident(log, "A2A request failed in the SDK: %s", error.get("message"))
        told = {"code": -32603, "message": internal_message(ident), "data": {"incident": ident}}
        return JSONResponse(body | {"error": told}, response.status_code)

    return answer
