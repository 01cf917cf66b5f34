"""The runs page: filters (state, kind, task text, creator, time; run_filters.py), a table that
refreshes itself with each run's time, steps, tokens and cost, sorting, paging."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from outrider.server.console_edge.auth import ConsoleAuth, session_of
from outrider.server.console_edge.run_filters import PAGE_SIZE, PERIODS, SORTS, Filters
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.console_edge.views import KIND_FILTERS, STATE_FILTERS, WAITING, run_view
from outrider.server.core.errors import NotFound
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.runs.manager import RunManager

_RUN_ID = re.compile(r"(?:runs/)?([0-9a-f]{24})")


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
            filters.size, filters.page, states, kind, principal, filters.text, filters.match()
        )
        waiting, more_waiting = self._runs.list(PAGE_SIZE, "", sorted(WAITING), 0, principal)
        shown = filters.sorted([run_view(run, principal) for run in runs])
        return {
            "session": session,
            "csrf": self._auth.signer.csrf_token(session),
            "auth_enabled": self._auth.keyring.enabled,
            "can_start": principal.is_admin or Scope.RUNS_START in principal.scopes,
            "filters": filters,
            "state_filters": STATE_FILTERS,
            "kind_filters": KIND_FILTERS,
            "periods": PERIODS,
            "sorts": SORTS,
            "creators": sorted(
                {principal.id, *(run.created_by for run in shown if run.created_by)}
            ),
            "runs": shown,
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
