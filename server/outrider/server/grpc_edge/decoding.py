"""Requests that do not decode are INVALID_ARGUMENT, not grpcio's UNKNOWN with the exception text.

grpcio calls the handler's deserializer before any servicer code runs and answers UNKNOWN when it
raises. This interceptor gives every handler a deserializer that returns an `Undecodable` marker
instead, and a behaviour that answers the marker with INVALID_ARGUMENT naming the message type;
for streamed requests the first undecodable message ends the call the same way.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

import grpc

from outrider.server.core.errors import InvalidArgument
from outrider.server.grpc_edge.errors import abort

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the type stubs
Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
Deserializer = Callable[[bytes], Any]


@dataclass(frozen=True)
class Undecodable:
    """Stands for a request message that its deserializer refused."""

    type_name: str

    def error(self) -> InvalidArgument:
        return InvalidArgument.single("request", f"is not a valid {self.type_name} message")


class DecodingInterceptor(grpc.aio.ServerInterceptor):
    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(details)
        if handler is None or handler.request_deserializer is None:
            return handler
        return _checked(handler, handler.request_deserializer)


def _safe(deserialize: Deserializer) -> Deserializer:
    type_name = _type_name(deserialize)

    def decode(raw: bytes) -> Any:
        try:
            return deserialize(raw)
        except Exception:  # DecodeError, RecursionError, whatever a codec raises
            return Undecodable(type_name)

    return decode


def _type_name(deserialize: Deserializer) -> str:
    owner = getattr(deserialize, "__self__", None)
    descriptor = getattr(owner, "DESCRIPTOR", None)
    return str(getattr(descriptor, "full_name", "request"))


def _checked(handler: Handler, deserialize: Deserializer) -> Handler:
    codecs = {
        "request_deserializer": _safe(deserialize),
        "response_serializer": handler.response_serializer,
    }
    if handler.request_streaming and handler.response_streaming:
        behaviour = _streamed_requests(handler.stream_stream)
        return grpc.stream_stream_rpc_method_handler(behaviour, **codecs)
    if handler.request_streaming:
        behaviour = _streamed_requests(handler.stream_unary)
        return grpc.stream_unary_rpc_method_handler(behaviour, **codecs)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(_one_request(handler.unary_stream), **codecs)
    return grpc.unary_unary_rpc_method_handler(_one_request(handler.unary_unary), **codecs)


def _one_request(inner: Any) -> Any:
    if inspect.isasyncgenfunction(inner):

        async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
            if isinstance(request, Undecodable):
                await abort(context, request.error())
            async for response in inner(request, context):
                yield response

        return stream

    async def unary(request: Any, context: Context) -> Any:
        if isinstance(request, Undecodable):
            await abort(context, request.error())
        return await inner(request, context)

    return unary


def _streamed_requests(inner: Any) -> Any:
    """The servicer reads requests through a filter that ends the call at an undecodable one
    (the status goes out at once, whichever task of the servicer was reading)."""

    async def checked(requests: AsyncIterator[Any], context: Context) -> AsyncIterator[Any]:
        async for request in requests:
            if isinstance(request, Undecodable):
                await abort(context, request.error())
            yield request

    if inspect.isasyncgenfunction(inner):

        async def stream(requests: AsyncIterator[Any], context: Context) -> AsyncIterator[Any]:
            async for response in inner(checked(requests, context), context):
                yield response

        return stream

    async def unary(requests: AsyncIterator[Any], context: Context) -> Any:
        return await inner(checked(requests, context), context)

    return unary
