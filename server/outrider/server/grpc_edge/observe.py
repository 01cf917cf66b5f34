"""Every gRPC call observed: a SERVER span continuing the caller's `traceparent`, request count
and latency by method and status code, and one access-log line (never bodies or metadata)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias

import grpc
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from outrider.server.telemetry import metrics, tracing

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the type stubs
Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
access_log = logging.getLogger("outrider.access")
# Probes and tooling: no span, and logged at DEBUG, so health checks every few seconds drown
# neither the traces nor the log.
_QUIET_SERVICES = ("grpc.health.v1.Health", "grpc.reflection.")
# Codes that mark a SERVER span failed (the RPC semantic conventions): the server's fault, not
# the caller's (NOT_FOUND, INVALID_ARGUMENT, ... are answers, not failures).
_SERVER_ERRORS = frozenset(
    {
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DATA_LOSS,
    }
)


class ObservingInterceptor(grpc.aio.ServerInterceptor):
    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(details)
        if handler is None:
            return None
        metadata = {k: v for k, v in details.invocation_metadata or () if isinstance(v, str)}
        return _observed(handler, _Call(details.method, metadata))


class _Call:
    """One call: its span, clock and outcome."""

    def __init__(self, method: str, metadata: dict[str, str]) -> None:
        self.method = method.lstrip("/")
        self.metadata = metadata
        self.started = 0.0
        self.peer = ""
        self.quiet = False
        self.attached: otel_context.Context | None = None

    def begin(self, context: Context) -> tuple[Span, object]:
        """Starts the span as the current one; returns it and the token to detach."""
        service, _, name = self.method.rpartition("/")
        self.quiet = self.method.startswith(_QUIET_SERVICES)
        span = (
            trace.INVALID_SPAN
            if self.quiet
            else tracing.TRACER.start_span(
                self.method,
                context=tracing.incoming(self.metadata),
                kind=SpanKind.SERVER,
                attributes={"rpc.system": "grpc", "rpc.service": service, "rpc.method": name},
            )
        )
        self.attached = trace.set_span_in_context(span)
        token = otel_context.attach(self.attached)
        self.started = time.perf_counter()
        self.peer = context.peer()  # read while the call is alive
        return span, token

    def end(self, span: Span, token: object, context: Context, error: BaseException | None) -> None:
        code = _code_of(context, error)
        seconds = time.perf_counter() - self.started
        span.set_attribute("rpc.grpc.status_code", code.value[0])
        if code in _SERVER_ERRORS:
            span.set_status(Status(StatusCode.ERROR, code.name))
        metrics.grpc_request(self.method, code.name, seconds)
        access_log.log(
            logging.DEBUG if self.quiet else logging.INFO,
            "grpc %s %s %.1f ms",
            self.method,
            code.name,
            seconds * 1000,
            extra={
                "protocol": "grpc",
                "method": self.method,
                "code": code.name,
                "duration_ms": round(seconds * 1000, 1),
                "peer": self.peer,
            },
        )
        span.end()
        # A stream closed from another task ends in another context: nothing to detach there.
        # GeneratorExit is such a close: grpc leaves a stream cancelled while it wrote a response
        # to the event loop's finalizer, whose task may run in a copy of the call's context (so
        # the check below passes, yet the token belongs to the call's own context and detaching
        # it fails with an error log). Nothing runs in the call's task after it anyway.
        if isinstance(error, GeneratorExit):
            return
        if otel_context.get_current() is self.attached:
            otel_context.detach(token)  # type: ignore[arg-type]


def _code_of(context: Context, error: BaseException | None) -> grpc.StatusCode:
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code
    if isinstance(code, int):
        return next((c for c in grpc.StatusCode if c.value[0] == code), grpc.StatusCode.UNKNOWN)
    if error is None:
        return grpc.StatusCode.OK
    cancelled = isinstance(error, asyncio.CancelledError)
    return grpc.StatusCode.CANCELLED if cancelled else grpc.StatusCode.UNKNOWN


def _observed(handler: Handler, call: _Call) -> Handler:
    codecs = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.unary_unary:
        return grpc.unary_unary_rpc_method_handler(_unary(handler.unary_unary, call), **codecs)
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(_unary(handler.stream_unary, call), **codecs)
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(_stream(handler.unary_stream, call), **codecs)
    return grpc.stream_stream_rpc_method_handler(_stream(handler.stream_stream, call), **codecs)


def _unary(behaviour: Any, call: _Call) -> Any:
    async def observed(request: Any, context: Context) -> Any:
        span, token = call.begin(context)
        error: BaseException | None = None
        try:
            return await behaviour(request, context)
        except BaseException as raised:
            error = raised
            raise
        finally:
            call.end(span, token, context, error)

    return observed


def _stream(behaviour: Any, call: _Call) -> Any:
    async def observed(request: Any, context: Context) -> AsyncIterator[Any]:
        span, token = call.begin(context)
        error: BaseException | None = None
        try:
            result = behaviour(request, context)
            if hasattr(result, "__aiter__"):
                async with contextlib.aclosing(result) as items:
                    async for item in items:
                        yield item
            else:  # a coroutine writing with context.write()
                await result
        except BaseException as raised:
            error = raised
            raise
        finally:
            call.end(span, token, context, error)

    return observed
