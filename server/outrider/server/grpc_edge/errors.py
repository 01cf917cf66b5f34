"""Core errors as gRPC statuses (the core's table) with google.rpc rich details."""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
from google.protobuf import duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from outrider.server.core.error_statuses import TABLE, status_of
from outrider.server.core.errors import (
    FieldViolation,
    InvalidArgument,
    OutriderError,
    ResourceExhausted,
    Unavailable,
)
from outrider.server.telemetry.incidents import incident, internal_message

log = logging.getLogger(__name__)

ERROR_DOMAIN = "outrider"
_STATUS_DETAILS_KEY = "grpc-status-details-bin"

# status code -> core error class, to turn another replica's answer back into a core error
_KINDS = {grpc.StatusCode[status.rpc_code]: kind for kind, status in TABLE.items()}


def status_code(error: OutriderError) -> grpc.StatusCode:
    """The code of the core's table (core/error_statuses.py)."""
    return grpc.StatusCode[status_of(error).rpc_code]


def rich_status(error: OutriderError) -> status_pb2.Status:
    """google.rpc.Status with ErrorInfo, plus BadRequest or RetryInfo where they apply."""
    code = status_code(error)
    status = status_pb2.Status(code=_rpc_code(code), message=error.message)
    status.details.add().Pack(error_details_pb2.ErrorInfo(reason=error.reason, domain=ERROR_DOMAIN))
    if isinstance(error, InvalidArgument):
        violations = [
            error_details_pb2.BadRequest.FieldViolation(field=v.field, description=v.description)
            for v in error.violations
        ]
        status.details.add().Pack(error_details_pb2.BadRequest(field_violations=violations))
    if isinstance(error, ResourceExhausted):
        delay = duration_pb2.Duration()
        delay.FromMilliseconds(int(error.retry_after * 1000))
        status.details.add().Pack(error_details_pb2.RetryInfo(retry_delay=delay))
    return status


def _rpc_code(code: grpc.StatusCode) -> int:
    return int(code_pb2.Code.Value(code.name))


async def abort(context: grpc.aio.ServicerContext[Any, Any], error: OutriderError) -> None:
    await _abort_with(context, status_code(error), rich_status(error))


async def abort_internal(context: grpc.aio.ServicerContext[Any, Any], ident: str) -> None:
    """Unknown failures: a generic message with the incident id on the wire, the stack trace in
    the log only (see telemetry/incidents.py)."""
    status = status_pb2.Status(code=code_pb2.INTERNAL, message=internal_message(ident))
    info = error_details_pb2.ErrorInfo(
        reason="INTERNAL", domain=ERROR_DOMAIN, metadata={"incident": ident}
    )
    status.details.add().Pack(info)
    await _abort_with(context, grpc.StatusCode.INTERNAL, status)


async def _abort_with(
    context: grpc.aio.ServicerContext[Any, Any], code: grpc.StatusCode, status: status_pb2.Status
) -> None:
    details = ((_STATUS_DETAILS_KEY, status.SerializeToString()),)
    await context.abort(code, status.message, trailing_metadata=details)


Req = TypeVar("Req")
Resp = TypeVar("Resp")
Self = TypeVar("Self")


def unary(
    method: Callable[[Self, Req, Any], Awaitable[Resp]],
) -> Callable[[Self, Req, Any], Awaitable[Resp]]:
    """Maps errors of a unary servicer method to statuses."""

    @functools.wraps(method)
    async def wrapper(self: Self, request: Req, context: Any) -> Resp:
        try:
            return await method(self, request, context)
        except OutriderError as error:
            await abort(context, error)
        except grpc.aio.AbortError:
            raise  # the status is already sent (e.g. a request that did not decode)
        except Exception:
            await abort_internal(context, incident(log, "unexpected error in %s", method.__name__))
        raise AssertionError("unreachable: abort raises")

    return wrapper


def streaming(
    method: Callable[[Self, Req, Any], AsyncIterator[Resp]],
) -> Callable[[Self, Req, Any], AsyncIterator[Resp]]:
    """Maps errors of a server-streaming servicer method to statuses."""

    @functools.wraps(method)
    async def wrapper(self: Self, request: Req, context: Any) -> AsyncIterator[Resp]:
        try:
            async for item in method(self, request, context):
                yield item
        except OutriderError as error:
            await abort(context, error)
        except grpc.aio.AbortError:
            raise  # the status is already sent (e.g. a request that did not decode)
        except Exception:
            await abort_internal(context, incident(log, "unexpected error in %s", method.__name__))

    return wrapper


def core_error(error: grpc.aio.AioRpcError) -> OutriderError:
    """The inverse of `rich_status`: the core error another replica answered a relayed call
    with, so this replica's edge reports it to its caller as if it were its own."""
    status = _status_of(error)
    message = status.message if status is not None else str(error.details() or "")
    reason, violations, retry_after = "", [], 1.0
    for detail in status.details if status is not None else ():
        info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
        retry = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            reason = info.reason
        elif detail.Unpack(bad):
            violations = [FieldViolation(v.field, v.description) for v in bad.field_violations]
        elif detail.Unpack(retry):
            retry_after = retry.retry_delay.ToMilliseconds() / 1000
    kind = _KINDS.get(error.code())
    if kind is InvalidArgument:
        return InvalidArgument(violations or [FieldViolation("", message)], message)
    if kind is ResourceExhausted:
        return ResourceExhausted(message, retry_after, reason or None)
    if kind is None or (kind is Unavailable and not reason):
        return Unavailable(f"the executing replica failed: {message}", reason="RELAY_FAILED")
    return kind(message, reason or None)


def _status_of(error: grpc.aio.AioRpcError) -> status_pb2.Status | None:
    for key, value in error.trailing_metadata() or ():
        if key == _STATUS_DETAILS_KEY and isinstance(value, bytes):
            return status_pb2.Status.FromString(value)
    return None
