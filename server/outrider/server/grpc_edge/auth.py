"""Optional API-key authentication: `authorization: Bearer <key>` on every call but health."""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeAlias

import grpc

from outrider.server.core.errors import Unauthenticated
from outrider.server.grpc_edge.errors import abort

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the type stubs
OPEN_SERVICES = frozenset({"grpc.health.v1.Health"})


def key_matches(header: str | None, keys: Sequence[str]) -> bool:
    """True when `header` is "Bearer <one of keys>"; compared in constant time."""
    if not header or not header.startswith("Bearer "):
        return False
    offered = header.removeprefix("Bearer ").strip().encode()
    return any(hmac.compare_digest(offered, key.encode()) for key in keys)


class ApiKeyInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, keys: Sequence[str]) -> None:
        self._keys = tuple(keys)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(details)
        service = details.method.split("/")[1] if details.method.count("/") >= 2 else ""
        if handler is None or service in OPEN_SERVICES:
            return handler
        metadata = dict(details.invocation_metadata or ())
        if key_matches(metadata.get("authorization"), self._keys):  # type: ignore[arg-type]
            return handler
        return _denying(handler)


_DENIED = Unauthenticated("missing or invalid API key; send 'authorization: Bearer <key>'")


async def _deny(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
    await abort(context, _DENIED)


async def _deny_stream(
    request: Any, context: grpc.aio.ServicerContext[Any, Any]
) -> AsyncIterator[Any]:
    await abort(context, _DENIED)
    yield None  # pragma: no cover - abort raises


def _denying(handler: Handler) -> Handler:
    """A handler of the same shape as `handler` that refuses the call."""
    codecs = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(_deny_stream, **codecs)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(_deny, **codecs)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(_deny_stream, **codecs)
    return grpc.unary_unary_rpc_method_handler(_deny, **codecs)
