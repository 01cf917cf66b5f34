"""The console's sign-in through the company's IdP (security/sso.py is the protocol): /sign-in/oidc
sends the browser to the IdP with a new attempt in a cookie, /sign-in/oidc/callback takes the
IdP's answer, makes the console sign-in and goes back to the page the person wanted.

The attempt's cookie is SameSite=Lax: the IdP's answer arrives as a cross-site navigation, which
Strict cookies do not follow. For the same reason the callback's answer is a page that moves on
by itself (a meta refresh, no script): the console's own Strict cookie then travels with a
navigation from this site, which a redirect continuing the IdP's cross-site chain may not get.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from outrider.server.console_edge.auth import ConsoleAuth, next_page_of
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.core.errors import PermissionDenied
from outrider.server.security.sessions import Session
from outrider.server.security.sso import ATTEMPT_SECONDS, Attempts, RelyingParty, SignInFailed
from outrider.server.settings import Settings

log = logging.getLogger(__name__)
CALLBACK = "/sign-in/oidc/callback"
_MAX_HINT_CHARS = 3500  # an ID token kept for the IdP's logout must fit in a cookie


class SsoSignIn:
    def __init__(
        self,
        auth: ConsoleAuth,
        pages: Pages,
        party: RelyingParty,
        attempts: Attempts,
        settings: Settings,
    ) -> None:
        self._auth = auth
        self._pages = pages
        self._party = party
        self._attempts = attempts
        self._redirect_url = settings.oidc.redirect_url
        self._public_url = settings.public_url
        self.provider_name = settings.oidc.provider_name
        prefix = "__Host-" if auth.secure else ""
        self._attempt_cookie = f"{prefix}outrider-console-sso"
        self._hint_cookie = f"{prefix}outrider-console-idp"

    async def start(self, request: Request) -> Response:
        """GET /sign-in/oidc?next=...: off to the IdP's sign-in page."""
        wanted = request.query_params.get("next", "")
        attempt = self._attempts.new(next_page_of(request, wanted))
        try:
            url = await self._party.authorization_url(attempt, self._callback(request))
        except SignInFailed as error:
            return self._problem(request, error.message)
        response = RedirectResponse(url, 303)
        response.set_cookie(
            self._attempt_cookie,
            self._attempts.seal(attempt),
            max_age=ATTEMPT_SECONDS,
            path=self._path(request, CALLBACK),
            secure=self._auth.secure,
            httponly=True,
            samesite="lax",
        )
        return response

    async def callback(self, request: Request) -> Response:
        """GET /sign-in/oidc/callback?code=...&state=...: the IdP's answer."""
        query = dict(request.query_params)
        try:
            cookie = request.cookies.get(self._attempt_cookie, "")
            attempt = self._attempts.open(cookie, query.get("state", ""))
            signed = await self._party.sign_in(query, attempt, self._callback(request))
        except (SignInFailed, PermissionDenied) as error:
            log.info("console sign-in through the IdP refused: %s", error.message)
            return self._problem(request, _shown(error), 403 if _denied(error) else 401)
        principal = signed.principal
        log.info("console sign-in: %s (tenant %s) through the IdP", principal.id, principal.tenant)
        cookie, _ = self._auth.signer.with_identity(principal)
        response = self._pages.page(request, "signed_in.html", 200, next_page=attempt.next_page)
        self._auth.set_cookie(request, response, cookie)
        response.delete_cookie(self._attempt_cookie, path=self._path(request, CALLBACK))
        if len(signed.id_token) <= _MAX_HINT_CHARS:
            response.set_cookie(
                self._hint_cookie,
                signed.id_token,
                max_age=int(self._auth.signer.lifetime),
                path=self._path(request, "/sign-out"),
                secure=self._auth.secure,
                httponly=True,
                samesite="strict",
            )
        return response

    async def signed_out(self, request: Request, session: Session, response: Response) -> Response:
        """Sign-out of a person the IdP signed in: the IdP's session ends too, where it offers
        RP-initiated logout (it sends the browser back to the sign-in page)."""
        self._drop_hint(request, response)
        if not session.through_idp:
            return response
        hint = request.cookies.get(self._hint_cookie, "")
        after = self._callback(request).removesuffix("/oidc/callback")  # the sign-in page
        url = await self._party.end_session_url(hint, after)
        if url is None:
            return response
        # a page that moves on by itself: a redirect of the sign-out form to another origin
        # is what the console's CSP (form-action 'self') forbids
        ending = self._pages.page(
            request, "signed_out.html", 200, end_session=url, provider=self.provider_name
        )
        for value in response.headers.getlist("set-cookie"):
            ending.headers.append("set-cookie", value)
        return ending

    def _drop_hint(self, request: Request, response: Response) -> None:
        response.delete_cookie(self._hint_cookie, path=self._path(request, "/sign-out"))

    def _callback(self, request: Request) -> str:
        """The redirect URI registered at the IdP: configured, else under the public URL, else
        at the address the browser reached."""
        if self._redirect_url:
            return self._redirect_url
        if self._public_url:
            origin = self._public_url.removesuffix(urlsplit(self._public_url).path)
            return f"{origin}{base_of(request)}{CALLBACK}"
        return f"{request.url.scheme}://{request.url.netloc}{base_of(request)}{CALLBACK}"

    def _path(self, request: Request, below: str) -> str:
        return "/" if self._auth.secure else f"{base_of(request)}{below}"

    def _problem(self, request: Request, message: str, status: int = 503) -> Response:
        return self._pages.page(
            request, "sign_in_problem.html", status, message=message, provider=self.provider_name
        )


def _denied(error: Exception) -> bool:
    return isinstance(error, PermissionDenied)


def _shown(error: SignInFailed | PermissionDenied) -> str:
    if isinstance(error, PermissionDenied):
        return "You signed in, but your account has no access to this console."
    return f"Signing in did not work: {error.message}."
