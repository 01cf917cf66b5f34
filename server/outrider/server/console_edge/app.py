"""The console's Starlette application, mounted at /console by the REST port's composer
(outrider.server.rest_port).

Every page but sign-in, the static files and the answer-link page needs a session
(`auth.signed_in`); every POST but sign-in and the answer link also needs the session's CSRF
token. Core errors become error pages with the REST edge's statuses.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from outrider.server.console_edge.answer_link import AnswerLinkPage, without_referrer
from outrider.server.console_edge.answering import ConsoleAnswers
from outrider.server.console_edge.auth import ConsoleAuth, signed_in
from outrider.server.console_edge.errors import error_page, shown
from outrider.server.console_edge.headers import SecurityHeadersMiddleware
from outrider.server.console_edge.live import LiveStream
from outrider.server.console_edge.live_view import LiveView
from outrider.server.console_edge.run_page import RunPage
from outrider.server.console_edge.runs_page import RunsPage
from outrider.server.console_edge.screen_info import ScreenInfo
from outrider.server.console_edge.session_page import SessionPages
from outrider.server.console_edge.sessions_page import SessionsPage
from outrider.server.console_edge.sign_in import SignIn
from outrider.server.console_edge.sso import CALLBACK, SsoSignIn
from outrider.server.console_edge.start_page import StartPage
from outrider.server.console_edge.templating import STATIC, Pages
from outrider.server.console_edge.vault_pages import VaultPages
from outrider.server.console_edge.webhooks_page import WebhooksPage
from outrider.server.core import paging
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.security.authn import Keyring
from outrider.server.security.sessions import SessionSigner
from outrider.server.security.sso import Attempts, RelyingParty
from outrider.server.settings import Settings

Endpoint = Callable[[Request], Awaitable[Response]]
STATIC_PATH = "/static"


def build_console(
    runs: RunManager, settings: Settings, keyring: Keyring, sessions: SessionManager | None = None
) -> Starlette:
    """The console; without `sessions` (a server that serves none) it starts no sessions."""
    pages = Pages()
    auth = ConsoleAuth(
        SessionSigner(
            paging.derived_key(runs.signing_key, "console sessions"),
            settings.console_session,
            key_sign_in=settings.oidc.key_sign_in,
        ),
        keyring,
        secure=settings.tls_cert is not None or (settings.public_url or "").startswith("https:"),
        public=settings.public_url or "",
    )
    sso = _sso(runs, settings, keyring, auth, pages)
    routes = _routes(runs, sessions, settings, pages, auth, sso)
    return Starlette(
        routes=routes,
        middleware=[Middleware(SecurityHeadersMiddleware, static_prefix=STATIC_PATH)],
        exception_handlers={HTTPException: _not_found(pages)},  # type: ignore[dict-item]
    )


def _sso(
    runs: RunManager, settings: Settings, keyring: Keyring, auth: ConsoleAuth, pages: Pages
) -> SsoSignIn | None:
    """Sign-in through the company's IdP, when it and the console's client are configured."""
    if keyring.tokens is None or not settings.oidc.client_id:
        return None
    attempts = Attempts(paging.derived_key(runs.signing_key, "console sign-in attempts"))
    return SsoSignIn(auth, pages, RelyingParty(keyring.tokens), attempts, settings)


def _routes(
    runs: RunManager,
    sessions: SessionManager | None,
    settings: Settings,
    pages: Pages,
    auth: ConsoleAuth,
    sso: SsoSignIn | None,
) -> list[BaseRoute]:
    sign_in = SignIn(auth, pages, sso)
    runs_page = RunsPage(runs, pages, auth)
    run_page = RunPage(runs, pages, auth)
    live = LiveStream(runs, pages, auth, settings.rest_retry_ms)
    answers = ConsoleAnswers(runs, pages, auth)
    link = AnswerLinkPage(runs.answer_links, pages, auth)
    browser = LiveView(runs, pages, auth)
    vault = VaultPages(runs, pages, auth)
    start = StartPage(runs, pages, auth, settings, sessions)
    webhooks = WebhooksPage(runs.webhooks.endpoints, pages, auth)
    private: list[tuple[str, Endpoint, str]] = [
        ("/", runs_page.page, "GET"),
        ("/runs-table", runs_page.table, "GET"),
        ("/start", start.page, "GET"),
        ("/start", start.start, "POST"),
        ("/runs/{runId}", run_page.page, "GET"),
        ("/runs/{runId}/live", live.stream, "GET"),
        ("/runs/{runId}/cancel", run_page.cancel, "POST"),
        ("/runs/{runId}/delete", run_page.delete, "POST"),
        ("/runs/{runId}/artifacts/{artifactId}", run_page.artifact, "GET"),
        ("/runs/{runId}/screen", browser.screen, "GET"),
        ("/runs/{runId}/screen-info", ScreenInfo(runs).stream, "GET"),
        ("/runs/{runId}/take-over", browser.take_over, "POST"),
        ("/runs/{runId}/input", browser.input, "POST"),
        ("/runs/{runId}/hand-back", browser.hand_back, "POST"),
        ("/runs/{runId}/decline", browser.decline, "POST"),
        ("/interactions/{interactionId}/input", answers.input, "POST"),
        ("/interactions/{interactionId}/approval", answers.approval, "POST"),
        ("/webhooks", webhooks.index, "GET"),
        ("/webhooks/{endpointId}", webhooks.endpoint, "GET"),
        ("/webhooks/{endpointId}/enabled", webhooks.switch, "POST"),
        ("/webhooks/{endpointId}/deliveries/{messageId}/resend", webhooks.resend, "POST"),
        ("/sign-out", sign_in.sign_out, "POST"),
        ("/profiles", vault.profiles, "GET"),
        ("/profiles/new", vault.new_profile, "POST"),
        ("/profiles/{profileId}/delete", vault.delete_profile, "POST"),
        ("/credentials", vault.credentials, "GET"),
        ("/credentials", vault.set_credential, "POST"),
        ("/credentials/{credentialId}/delete", vault.delete_credential, "POST"),
    ]
    if sessions is not None:
        session_pages = SessionPages(sessions, pages, auth, settings.sessions, runs.profiles)
        private += [
            ("/sessions", SessionsPage(sessions, pages, auth).page, "GET"),
            ("/start/session", session_pages.form, "GET"),
            ("/start/session", session_pages.create, "POST"),
            ("/sessions/{sessionId}", session_pages.page, "GET"),
            ("/sessions/{sessionId}/end", session_pages.end, "POST"),
            ("/sessions/{sessionId}/use-browser", session_pages.lend_browser, "POST"),
        ]
    public: list[tuple[str, Endpoint, str]] = [
        ("/sign-in", sign_in.page, "GET"),
        ("/sign-in", sign_in.with_key, "POST"),
        ("/sign-in/certificate", sign_in.with_certificate, "POST"),
    ]
    if sso is not None:
        public += [("/sign-in/oidc", sso.start, "GET"), (CALLBACK, sso.callback, "GET")]
    link_pages: list[tuple[str, Endpoint, str]] = [  # their URL holds the token
        ("/answer/{token}", link.page, "GET"),
        ("/answer/{token}", link.answer, "POST"),
    ]
    return [
        *(Route(p, shown(pages, signed_in(auth, fn)), methods=[m]) for p, fn, m in private),
        *(Route(p, shown(pages, fn), methods=[m]) for p, fn, m in public),
        *(Route(p, without_referrer(shown(pages, fn)), methods=[m]) for p, fn, m in link_pages),
        Mount(STATIC_PATH, StaticFiles(directory=STATIC), name="static"),
    ]


def _not_found(pages: Pages) -> Callable[[Request, HTTPException], Awaitable[Response]]:
    async def handler(request: Request, error: HTTPException) -> Response:
        messages = {404: "There is no such page.", 405: "That is not something this page does."}
        text = messages.get(error.status_code, str(error.detail))
        return error_page(pages, request, error.status_code, text)

    return handler
