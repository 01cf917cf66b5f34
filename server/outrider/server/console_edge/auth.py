"""Who is using the console: the console sign-in cookie (called the session here), its flags, and
the checks on every change. A request that carries its own credential (`Authorization: Bearer`
with a key or an access token for the console's audience) is served as that principal without
a cookie, and needs no CSRF token (no browser sends it on its own).

The cookie is HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it),
and Secure with the `__Host-` prefix when people reach the console over HTTPS (TLS here, or an
https OUTRIDER_PUBLIC_URL in front); it expires with the session. Every state change (POST)
must come from a console page: the browser's Origin (or Sec-Fetch-Site) says same origin, and
the form or the htmx request carries the session's CSRF token.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from urllib.parse import quote, urlsplit

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from outrider.server.console_edge.templating import base_of
from outrider.server.core.errors import OutriderError, PermissionDenied
from outrider.server.core.runs.stream_checks import Reauthenticate
from outrider.server.security.authn import (
    PEER_NAME_STATE,
    Keyring,
    authenticate,
    authenticate_call,
    bearer,
)
from outrider.server.security.identity import Door
from outrider.server.security.sessions import Session, SessionSigner
from outrider.server.telemetry.logs import bind_principal

Endpoint = Callable[[Request], Awaitable[Response]]
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf"
_SAFE = frozenset({"GET", "HEAD"})


class ConsoleAuth:
    def __init__(self, signer: SessionSigner, keyring: Keyring, secure: bool, public: str) -> None:
        self.signer = signer
        self.keyring = keyring
        self.secure = secure
        self._public_origin = _origin(public) if public else None
        self.cookie_name = "__Host-outrider-console" if secure else "outrider-console"

    def session_of(self, request: Request) -> Session | None:
        cookie = request.cookies.get(self.cookie_name)
        if not cookie:
            return None
        try:
            return self.signer.verify(cookie, self.keyring, peer_name(request))
        except OutriderError:
            return None

    async def bearer_session(self, request: Request) -> Session:
        """The principal of a request's own credential, as a session of that one request."""
        authorization = request.headers.get("authorization")
        door = Door.CONSOLE
        principal = await authenticate_call(self.keyring, authorization, peer_name(request), door)
        return Session(principal, "", 0.0, by_bearer=True)

    def reauthentication(self, request: Request) -> Reauthenticate:
        """Checks the request's session again (for a long stream): its principal now, or
        Unauthenticated once it expired or its key left the key file."""
        authorization = request.headers.get("authorization") or ""
        if bearer(authorization) is not None:
            peer = peer_name(request)
            return lambda: authenticate(self.keyring, authorization, peer, Door.CONSOLE)
        cookie = request.cookies.get(self.cookie_name, "")
        peer = peer_name(request)
        return lambda: self.signer.verify(cookie, self.keyring, peer).principal

    def set_cookie(self, request: Request, response: Response, cookie: str) -> None:
        response.set_cookie(
            self.cookie_name,
            cookie,
            max_age=int(self.signer.lifetime),
            path=self._cookie_path(request),
            secure=self.secure,
            httponly=True,
            samesite="strict",
        )

    def clear_cookie(self, request: Request, response: Response) -> None:
        response.delete_cookie(
            self.cookie_name,
            path=self._cookie_path(request),
            secure=self.secure,
            httponly=True,
            samesite="strict",
        )

    def _cookie_path(self, request: Request) -> str:
        # `__Host-` cookies must have Path=/; without TLS the cookie stays off the API's paths.
        return "/" if self.secure else (base_of(request) or "/")

    def same_origin(self, request: Request) -> bool:
        """A browser says where a POST comes from; a page of another site is refused. Clients
        that are not browsers send neither header (they cannot ride on a person's cookie)."""
        origin = request.headers.get("origin")
        if origin is not None and origin != "null":  # "null": a browser hiding it; see below
            here = f"{request.url.scheme}://{request.headers.get('host', '')}"
            return origin.lower() in (_origin(here), self._public_origin)
        fetch_site = request.headers.get("sec-fetch-site")
        if origin == "null":
            return fetch_site == "same-origin"
        return fetch_site in (None, "same-origin", "none")

    def check_change(self, request: Request, session: Session, form_token: str | None) -> None:
        if session.by_bearer:
            return
        token = request.headers.get(CSRF_HEADER) or form_token or ""
        if not self.same_origin(request) or not self.signer.csrf_ok(session, token):
            raise PermissionDenied(
                "this change did not come from a console page (missing or wrong CSRF token); "
                "reload the page and try again",
                reason="CSRF_REFUSED",
            )


def peer_name(request: Request) -> str | None:
    value = request.scope.get("state", {}).get(PEER_NAME_STATE)
    return str(value) if value else None


def signed_in(auth: ConsoleAuth, endpoint: Endpoint) -> Endpoint:
    """Runs `endpoint` with `request.state.session`; without a valid session a page goes to
    sign-in (an htmx request is told to go there) and anything else is 401."""

    @functools.wraps(endpoint)
    async def wrapper(request: Request) -> Response:
        if bearer(request.headers.get("authorization") or "") is not None:
            session: Session | None = await auth.bearer_session(request)
        else:
            session = auth.session_of(request)
        if session is None:
            return to_sign_in(request)
        request.state.session = session
        bind_principal(session.principal.id)
        return await endpoint(request)

    return wrapper


def to_sign_in(request: Request) -> Response:
    target = f"{base_of(request)}/sign-in"
    if request.method in _SAFE and request.headers.get("hx-request") != "true":
        back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"{target}?next={_quoted(back)}", 303)
    return Response(status_code=401, headers={"HX-Redirect": target})


def session_of(request: Request) -> Session:
    session = request.state.session
    assert isinstance(session, Session), "signed_in did not run"
    return session


def next_page_of(request: Request, wanted: str) -> str:
    """Where to go after signing in: a console page only (never another site)."""
    base = base_of(request)
    if wanted.startswith(f"{base}/") and not wanted.startswith("//") and "\\" not in wanted:
        return wanted
    return f"{base}/"


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _quoted(path: str) -> str:
    return quote(path, safe="/")
