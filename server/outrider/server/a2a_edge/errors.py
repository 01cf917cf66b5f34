"""The one table from the core's errors to A2A's, applied to every operation of the handler.

A2A errors raised by the edge itself pass through; an unknown exception becomes a generic
internal error (its text only in the server log), never a stack trace or a message on the wire.
"""

from __future__ import annotations

import functools
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

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")
_GENERIC = "internal error; the server log has the details"


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
            log.exception("A2A %s failed", call.__name__)
            raise InternalError(_GENERIC) from None

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
            log.exception("A2A %s failed", call.__name__)
            raise InternalError(_GENERIC) from None
        finally:
            await stream.aclose()

    return wrapper
