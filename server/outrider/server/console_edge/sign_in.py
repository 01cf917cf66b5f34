"""Signing in (an API key, the client certificate of a mutual-TLS connection, or the company's
IdP through sso.py) and out.

With authentication off (no key configured) everyone is the anonymous principal and the sign-in
page signs in at once. A failed sign-in says only that the key is not valid. With
OUTRIDER_OIDC_KEY_SIGN_IN=false the page offers the IdP only and key sign-ins are refused.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from outrider.server.console_edge.auth import (
    CSRF_FIELD,
    ConsoleAuth,
    next_page_of,
    peer_name,
    session_of,
)
from outrider.server.console_edge.forms import read_form
from outrider.server.console_edge.sso import SsoSignIn
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.core.errors import PermissionDenied, Unauthenticated

_NOT_A_PAGE = PermissionDenied(
    "this sign-in did not come from the console's own page", reason="CSRF_REFUSED"
)


class SignIn:
    def __init__(self, auth: ConsoleAuth, pages: Pages, sso: SsoSignIn | None = None) -> None:
        self._auth = auth
        self._pages = pages
        self._sso = sso

    async def page(self, request: Request) -> Response:
        next_page = next_page_of(request, request.query_params.get("next", ""))
        if not self._auth.keyring.enabled:
            cookie, _ = self._auth.signer.with_key(self._auth.keyring, "")
            return self._signed_in(request, cookie, next_page)
        if self._auth.session_of(request) is not None:
            return RedirectResponse(next_page, 303)
        return self._form(request, next_page)

    def _form(self, request: Request, next_page: str, problem: str = "") -> Response:
        name = peer_name(request)
        mapped = self._auth.keyring.by_certificate(name) if name else None
        return self._pages.page(
            request,
            "sign_in.html",
            401 if problem else 200,
            next_page=next_page,
            problem=problem,
            certificate=name if mapped else "",
            certificate_principal=mapped.id if mapped else "",
            sso=self._sso.provider_name if self._sso is not None else "",
            key_sign_in=self._auth.signer.key_sign_in,
            signed_out=request.query_params.get("signed_out") == "1",
        )

    async def with_key(self, request: Request) -> Response:
        if not self._auth.same_origin(request):
            raise _NOT_A_PAGE
        form = await read_form(request)
        next_page = next_page_of(request, form.get("next"))
        if not self._auth.signer.key_sign_in:
            return self._form(request, next_page, "Signing in with an API key is turned off.")
        try:
            cookie, _ = self._auth.signer.with_key(self._auth.keyring, form.get("key").strip())
        except Unauthenticated:
            return self._form(request, next_page, "That API key is not valid.")
        return self._signed_in(request, cookie, next_page)

    async def with_certificate(self, request: Request) -> Response:
        if not self._auth.same_origin(request):
            raise _NOT_A_PAGE
        form = await read_form(request)
        next_page = next_page_of(request, form.get("next"))
        cookie, _ = self._auth.signer.with_certificate(self._auth.keyring, peer_name(request))
        return self._signed_in(request, cookie, next_page)

    async def sign_out(self, request: Request) -> Response:
        """Ends the console sign-in in this browser (the cookie is cleared) and, for a person the
        IdP signed in, at the IdP where it offers that."""
        form = await read_form(request)
        session = session_of(request)
        self._auth.check_change(request, session, form.get(CSRF_FIELD))
        response = RedirectResponse(f"{base_of(request)}/sign-in?signed_out=1", 303)
        self._auth.clear_cookie(request, response)
        if self._sso is not None:
            return await self._sso.signed_out(request, session, response)
        return response

    def _signed_in(self, request: Request, cookie: str, next_page: str) -> Response:
        response = RedirectResponse(next_page, 303)
        self._auth.set_cookie(request, response, cookie)
        return response
