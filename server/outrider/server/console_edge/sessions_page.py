"""The sessions page (/sessions): the tenant's sessions (every tenant's for an admin), newest
first, the live ones unless asked otherwise, each with its state, its runs, where its browser is
and when it ends; a page at a time, refreshed while it is open."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from outrider.server.console_edge.auth import ConsoleAuth, session_of
from outrider.server.console_edge.session_form import session_view
from outrider.server.console_edge.templating import Pages
from outrider.server.console_edge.views import may
from outrider.server.core.errors import InvalidArgument
from outrider.server.core.principals import Scope
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.core.storage.session_contract import LIVE_SESSION_STATES
from outrider.v1 import session_pb2

PAGE_SIZE = 50
SHOWS: dict[str, tuple[str, list[int]]] = {
    "live": ("Live", list(LIVE_SESSION_STATES)),
    "ended": ("Ended", [session_pb2.SESSION_STATE_ENDED]),
    "all": ("All", []),
}


class SessionsPage:
    def __init__(self, sessions: SessionManager, pages: Pages, auth: ConsoleAuth) -> None:
        self._sessions = sessions
        self._pages = pages
        self._auth = auth

    async def page(self, request: Request) -> Response:
        signed_in = session_of(request)
        show = request.query_params.get("show", "live")
        show = show if show in SHOWS else "live"
        token = request.query_params.get("page", "")[:2000]
        states = SHOWS[show][1]
        try:
            found, after = self._sessions.list(PAGE_SIZE, token, states, 0, signed_in.principal)
        except InvalidArgument:  # a page token from other filters or spoilt: the first page
            token = ""
            found, after = self._sessions.list(PAGE_SIZE, "", states, 0, signed_in.principal)
        return self._pages.page(
            request,
            "sessions.html",
            session=signed_in,
            csrf=self._auth.signer.csrf_token(signed_in),
            auth_enabled=self._auth.keyring.enabled,
            can_start=may(signed_in.principal, Scope.RUNS_START),
            shown=[session_view(found_one) for found_one in found],
            show=show,
            shows=SHOWS,
            page_token=token,
            next_token=after,
        )
