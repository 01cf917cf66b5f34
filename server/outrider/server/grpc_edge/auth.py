"""Authentication and the access table on every call: a call is admitted with a principal, which
the servicers read with `caller()` and hand to the core.

The principal sits in a context variable set by the wrapping handler, in the task that runs the
call, so it cannot leak between calls.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias

import grpc

from outrider.server.core.errors import OutriderError, PermissionDenied, Unauthenticated
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.runs.stream_checks import Reauthenticate
from outrider.server.grpc_edge.errors import abort
from outrider.server.grpc_edge.relay_client import RELAYED_METHODS
from outrider.server.security.access import OPEN, Requirement, grpc_requirement
from outrider.server.security.authn import Keyring, authenticate, authenticate_call
from outrider.server.security.identity import Door
from outrider.server.security.relay import RELAY_HEADER, RelayedCall, RelayKey, request_bytes
from outrider.server.settings import Settings
from outrider.server.telemetry.logs import bind_principal

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"  # generic only in the type stubs
Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"

_CALLER: contextvars.ContextVar[Principal] = contextvars.ContextVar("outrider_caller")
_RECHECK: contextvars.ContextVar[Reauthenticate | None] = contextvars.ContextVar(
    "outrider_recheck", default=None
)


def caller() -> Principal:
    """The principal of the call being served (set by AuthInterceptor)."""
    return _CALLER.get()


def reauthentication() -> Reauthenticate | None:
    """Checks the call's credential again against the current keys (for long streams); None
    for a call another replica authenticated and relayed here."""
    return _RECHECK.get()


def peer_common_name(context: Context) -> str | None:
    """The common name of the client certificate the TLS handshake verified, if any."""
    names = list(context.auth_context().get("x509_common_name") or ())
    return names[0].decode() if names else None


class AuthInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, keyring: Keyring, settings: Settings) -> None:
        self._keyring = keyring
        self._settings = settings
        secret = settings.cluster_secret
        self._relay_key = RelayKey(secret.get_secret_value()) if secret else None
        self.relay_audience = ""  # this replica's advertised address, once it is bound

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(details)
        if handler is None:
            return None
        need = grpc_requirement(details.method, self._settings)
        if need == OPEN:
            return handler

        async def admit(context: Context, request: Any) -> bool:
            try:
                principal, recheck = await self._principal(context, need, details.method, request)
                _CALLER.set(principal)
                _RECHECK.set(recheck)
                bind_principal(principal.id)  # log lines of this call name the caller
            except OutriderError as error:
                await abort(context, error)
                return False
            return True

        return _guarded(handler, admit)

    async def _principal(
        self, context: Context, need: Requirement | None, method: str, request: Any
    ) -> tuple[Principal, Reauthenticate | None]:
        """The caller, and how to check its credential again later."""
        metadata = dict(context.invocation_metadata() or ())
        authorization = metadata.get("authorization")
        relayed = metadata.get(RELAY_HEADER)
        recheck: Reauthenticate | None = None
        if isinstance(relayed, str):
            principal = self._relayed(relayed, method, request)
        else:
            key = authorization if isinstance(authorization, str) else None
            peer = peer_common_name(context)
            principal = await authenticate_call(self._keyring, key, peer, Door.GRPC)
            recheck = functools.partial(authenticate, self._keyring, key, peer, Door.GRPC)
        if need is None:
            raise PermissionDenied(f"{method} has no access rule", reason="NO_ACCESS_RULE")
        if isinstance(need, Scope):
            principal.require(need)
        return principal, recheck

    def _relayed(self, token: str, method: str, request: Any) -> Principal:
        """The caller another replica authenticated and relayed here (core/cluster/relay.py)."""
        if self._relay_key is None:
            raise Unauthenticated(
                "a relayed call, but this replica has no OUTRIDER_CLUSTER_SECRET",
                reason="RELAY_NOT_CONFIGURED",
            )
        if method not in RELAYED_METHODS or request is None:
            raise PermissionDenied(f"{method} is never relayed", reason="NOT_RELAYABLE")
        call = RelayedCall(method, request_bytes(request), self.relay_audience)
        return self._relay_key.verify(token, call)


# Admits a call: its context, and its request when it has one (not for streamed requests).
Admit = Callable[[Context, Any], Awaitable[bool]]


def _guarded(handler: Handler, admit: Admit) -> Handler:
    """A handler of the same shape as `handler` that admits the caller first."""
    codecs = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.request_streaming and handler.response_streaming:
        inner = handler.stream_stream
        return grpc.stream_stream_rpc_method_handler(_wrap_streaming(inner, admit), **codecs)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(
            _wrap_unary(handler.stream_unary, admit), **codecs
        )
    if handler.response_streaming:
        inner = handler.unary_stream
        return grpc.unary_stream_rpc_method_handler(_wrap_streaming(inner, admit), **codecs)
    return grpc.unary_unary_rpc_method_handler(_wrap_unary(handler.unary_unary, admit), **codecs)


def _wrap_unary(inner: Any, admit: Admit) -> Any:
    async def behavior(request: Any, context: Context) -> Any:
        if await admit(context, _single(request)):
            return await inner(request, context)
        return None

    return behavior


def _wrap_streaming(inner: Any, admit: Admit) -> Any:
    """Streams written with `yield` stay generators; those using context.write (health's Watch)
    stay coroutines, since grpc.aio does not allow mixing the two."""
    if not inspect.isasyncgenfunction(inner):
        return _wrap_unary(inner, admit)

    async def behavior(request: Any, context: Context) -> AsyncIterator[Any]:
        if await admit(context, _single(request)):
            async for response in inner(request, context):
                yield response

    return behavior


def _single(request: Any) -> Any:
    """The call's request message, or None when the client streams its requests."""
    return None if hasattr(request, "__aiter__") else request
