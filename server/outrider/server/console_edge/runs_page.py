"""The runs page: filters (state, kind, task text), a live-refreshing table, paging."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from outrider.server.console_edge.auth import ConsoleAuth, session_of
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.console_edge.views import KIND_FILTERS, STATE_FILTERS, WAITING, run_view
from outrider.server.core.errors import NotFound
from outrider.server.core.principals import Principal
from outrider.server.core.runs.manager import RunManager

PAGE_SIZE = 25
MAX_PAGE_SIZE = 200
_RUN_ID = re.compile(r"(?:runs/)?([0-9a-f]{24})")


@dataclass(frozen=True)
class Filters:
    state: str
    kind: str
    text: str
    page: str
    size: int = PAGE_SIZE

    @classmethod
    def of(cls, request: Request) -> Filters:
        query = request.query_params
        state = query.get("state", "")
        kind = query.get("kind", "")
        size = query.get("size", "")
        return cls(
            state if state in STATE_FILTERS else "",
            kind if kind in KIND_FILTERS else "",
            query.get("q", "").strip()[:200],
            query.get("page", ""),
            int(size) if size.isdigit() and 0 < int(size) <= MAX_PAGE_SIZE else PAGE_SIZE,
        )

    def query(self, page: str | None = None) -> str:
        values = {"state": self.state, "kind": self.kind, "q": self.text, "page": page or ""}
        if self.size != PAGE_SIZE:
            values["size"] = str(self.size)
        return urlencode({k: v for k, v in values.items() if v})


class RunsPage:
    def __init__(self, runs: RunManager, pages: Pages, auth: ConsoleAuth) -> None:
        self._runs = runs
        self._pages = pages
        self._auth = auth

    async def page(self, request: Request) -> Response:
        filters = Filters.of(request)
        found = self._run_by_id(filters.text, session_of(request).principal)
        if found:  # a run id pasted into the search box: go straight to it
            return RedirectResponse(f"{base_of(request)}/runs/{found}", 303)
        deleted = "deleted" in request.query_params
        context = self._context(request, filters)
        return self._pages.page(request, "runs.html", deleted=deleted, **context)

    async def table(self, request: Request) -> Response:
        """The table alone, for the filters and the periodic refresh (htmx)."""
        filters = Filters.of(request)
        response = self._pages.page(request, "runs_table.html", **self._context(request, filters))
        if request.headers.get("hx-trigger") == "filters":  # the address bar follows the filters
            query = filters.query(filters.page)
            response.headers["HX-Push-Url"] = f"{base_of(request)}/{'?' if query else ''}{query}"
        return response

    def _context(self, request: Request, filters: Filters) -> dict[str, object]:
        session = session_of(request)
        principal = session.principal
        states = list(STATE_FILTERS[filters.state][1])
        kind = KIND_FILTERS[filters.kind][1]
        runs, token = self._runs.list(
            filters.size, filters.page, states, kind, principal, filters.text
        )
        waiting, more_waiting = self._runs.list(PAGE_SIZE, "", sorted(WAITING), 0, principal)
        return {
            "session": session,
            "csrf": self._auth.signer.csrf_token(session),
            "auth_enabled": self._auth.keyring.enabled,
            "filters": filters,
            "state_filters": STATE_FILTERS,
            "kind_filters": KIND_FILTERS,
            "runs": [run_view(run, principal) for run in runs],
            "next_query": filters.query(token) if token else "",
            "waiting": [run_view(run, principal) for run in waiting],
            "more_waiting": bool(more_waiting),
            "self_query": filters.query(filters.page),
        }

    def _run_by_id(self, text: str, principal: Principal) -> str | None:
        match = _RUN_ID.fullmatch(text)
        if match is None:
            return None
        try:
            self._runs.get(match.group(1), principal)
        except NotFound:
            return None
        return match.group(1)
