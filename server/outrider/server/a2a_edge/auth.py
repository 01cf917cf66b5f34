"""Who calls the A2A endpoint, checked before the SDK's dispatcher reads the request: a bearer
key or a mapped client certificate (security/authn, as on every edge), else 401 with a Bearer
challenge; a JSON body (else 415, ContentTypeNotSupportedError: what a page of another site
could send without a CORS preflight is never read); then the scopes of the JSON-RPC method
(security/access.A2A_METHODS), else 403. Refusals are JSON-RPC error objects (-32000 for
authentication and scopes, with an ErrorInfo naming the reason).

The principal then reaches the handler through the SDK's call context (`Caller`), with the base
URL the task's links are made from.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from a2a.auth.user import User
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers.response_helpers import build_error_response
from a2a.server.routes.common import DefaultServerCallContextBuilder
from a2a.utils.errors import ContentTypeNotSupportedError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from outrider.server.a2a_edge import bodies
from outrider.server.a2a_edge.links import Caller
from outrider.server.core.errors import OutriderError, PermissionDenied
from outrider.server.core.principals import ANONYMOUS, Principal
from outrider.server.security.access import a2a_requirement
from outrider.server.security.authn import PEER_NAME_STATE, Keyring, authenticate_call
from outrider.server.security.identity import Door
from outrider.server.telemetry.logs import bind_principal

Endpoint = Callable[[Request], Awaitable[Response]]
CALLER_STATE = "outrider.caller"
MAX_BODY_BYTES = 1024 * 1024
_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="outrider"'}


def authenticated(endpoint: Endpoint, keyring: Keyring) -> Endpoint:
    async def guarded(request: Request) -> Response:
        peer = request.scope.get("state", {}).get(PEER_NAME_STATE)
        try:
            authorization = request.headers.get("authorization")
            principal = await authenticate_call(keyring, authorization, peer, Door.A2A)
        except PermissionDenied as error:  # an access token whose claims map to no scope
            return refusal(403, error, None)
        except OutriderError as error:
            return refusal(401, error, None, _CHALLENGE)
        bind_principal(principal.id)  # log lines of this request name the caller
        if not _is_json(request.headers.get("content-type", "")):
            return _not_json()
        body = await _read_body(request)
        if isinstance(body, Response):
            return body
        method, names_a_task, request_id = _peek(body)
        try:
            for scope in a2a_requirement(method, names_a_task):
                principal.require(scope)
        except PermissionDenied as error:
            return refusal(403, error, request_id)
        request.state.a2a_principal = principal
        return await endpoint(request)

    return guarded


async def _read_body(request: Request) -> Any:
    """The JSON body, or the refusal of one too large (413) or that the dispatcher cannot take
    (see `bodies`). The bytes stay cached on the request for the dispatcher."""
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            too_big = OutriderError(f"bodies are at most {MAX_BODY_BYTES:,} bytes", "TOO_LARGE")
            return refusal(413, too_big, None)
    setattr(request, "_body", bytes(raw))  # noqa: B010 - Starlette's own cache of body()
    return bodies.parsed(bytes(raw))


def _is_json(content_type: str) -> bool:
    """application/json, with a UTF-8 charset if it names one."""
    media_type, *parameters = (part.strip().lower() for part in content_type.split(";"))
    charsets = [p.partition("=")[2].strip('" ') for p in parameters if p.startswith("charset")]
    return media_type == "application/json" and all(c in ("utf-8", "utf8") for c in charsets)


def _not_json() -> Response:
    error = ContentTypeNotSupportedError("JSON-RPC requests are sent as application/json")
    return JSONResponse(build_error_response(None, error), 415)


def _peek(body: Any) -> tuple[str, bool, Any]:
    """The method, whether its message names a task, and the request id, as far as they can be
    read; the dispatcher reports whatever is malformed."""
    if not isinstance(body, dict):
        return "", False, None
    params = body.get("params")
    message = params.get("message") if isinstance(params, dict) else None
    names_a_task = isinstance(message, dict) and bool(message.get("taskId"))
    request_id = body.get("id") if isinstance(body.get("id"), str | int) else None
    return str(body.get("method", "")), names_a_task, request_id


def body_refusal(status: int, reason: str, message: str) -> Response:
    """A request body refused before it was read whole (rest_edge/body_limits.py)."""
    return refusal(status, OutriderError(message, reason), None)


def refusal(
    status: int, error: OutriderError, request_id: Any, headers: dict[str, str] | None = None
) -> Response:
    info = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": error.reason,
        "domain": "outrider",
    }
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": -32000, "message": error.message, "data": [info]},
    }
    return JSONResponse(body, status, headers=headers)


class _Principal(User):
    def __init__(self, principal: Principal) -> None:
        self._principal = principal

    @property
    def is_authenticated(self) -> bool:
        return self._principal is not ANONYMOUS

    @property
    def user_name(self) -> str:
        return self._principal.id


class CallContextBuilder(DefaultServerCallContextBuilder):
    """The SDK's call context, with our caller in its state."""

    def __init__(self, public_url: str | None) -> None:
        self._public_url = (public_url or "").rstrip("/")

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        base = self._public_url or str(request.base_url).rstrip("/")
        context.state[CALLER_STATE] = Caller(_principal_of(request), base)
        return context

    def build_user(self, request: Request) -> User:
        return _Principal(_principal_of(request))


def caller_of(context: ServerCallContext) -> Caller:
    caller = context.state.get(CALLER_STATE)
    assert isinstance(caller, Caller), "the A2A call context was not built by CallContextBuilder"
    return caller


def _principal_of(request: Request) -> Principal:
    principal = getattr(request.state, "a2a_principal", None)
    assert isinstance(principal, Principal), "an A2A request skipped authentication"
    return principal
