"""Starting a run from the console (/start): a browser run or a research run with the options the
API has, the models the principal may choose, through the same core call as every door (so the
same checks, scope, quotas and relay). Each form carries a request id of its own, so a start sent
twice (a double click, a reload of the answer) is one run. A refused start shows the form again
with what was wrong next to its field, keeping every value but secrets."""

from __future__ import annotations

import uuid

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from outrider.server.console_edge import model_choices
from outrider.server.console_edge.auth import CSRF_FIELD, ConsoleAuth, session_of
from outrider.server.console_edge.forms import read_form
from outrider.server.console_edge.start_form import (
    PROFILE_SAVES,
    RECIPE_MODES,
    RESEARCH_MODES,
    FormProblem,
    StartValues,
    note_violations,
    spec_of,
    values_of,
)
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.console_edge.views import may
from outrider.server.core import request_ids
from outrider.server.core.error_statuses import http_status
from outrider.server.core.errors import (
    InvalidArgument,
    NotFound,
    OutriderError,
    PermissionDenied,
    Unavailable,
)
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.sessions.checks import KINDS
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.core.storage.session_contract import LIVE_SESSION_STATES
from outrider.server.settings import Settings


class StartPage:
    def __init__(
        self,
        runs: RunManager,
        pages: Pages,
        auth: ConsoleAuth,
        settings: Settings,
        sessions: SessionManager | None = None,
    ) -> None:
        self._runs = runs
        self._pages = pages
        self._auth = auth
        self._settings = settings
        self._sessions = sessions

    async def page(self, request: Request) -> Response:
        """The form; ?kind=research starts on a research run, ?session=sessions/... in that
        session (the session page's way to start a run in it)."""
        kind = request.query_params.get("kind", "browser")
        values = StartValues(kind=kind if kind == "research" else "browser")
        values.text["session"] = request.query_params.get("session", "")[:200]
        return self._form(request, values)

    async def start(self, request: Request) -> Response:
        session = session_of(request)
        form = await read_form(request)
        self._auth.check_change(request, session, form.get(CSRF_FIELD))
        values = values_of(form)
        principal = session.principal
        request_id = request_ids.check_request_id(form.get("request_id"), "request_id")
        model = form.get("model")
        try:
            if not model_choices.allowed(model, self._settings, principal):
                raise FormProblem("model", "must be one of the models offered here")
            spec = spec_of(form, model)
            started = await self._runs.start(spec, principal, "", "", request_id)
        except FormProblem as problem:
            values.errors[problem.field] = str(problem)
            return self._form(request, values, 400)
        except InvalidArgument as error:
            note_violations(values, error)
            return self._form(request, values, 400)
        except PermissionDenied:
            raise  # an error page: the form was not theirs to send
        except OutriderError as error:  # no model, a quota, the server full or stopping
            if values.get("session") and _about_the_session(error):
                values.errors["session"] = error.message  # busy, ended, or not found
                return self._form(request, values, http_status(error))
            values.problems.append(error.message)
            retry = request_id if isinstance(error, Unavailable) else ""  # the same start again
            return self._form(request, values, http_status(error), retry)
        run_id = started.run.name.removeprefix("runs/")
        return RedirectResponse(f"{base_of(request)}/runs/{run_id}", 303)

    def _form(
        self, request: Request, values: StartValues, status: int = 200, request_id: str = ""
    ) -> Response:
        session = session_of(request)
        principal = session.principal
        return self._pages.page(
            request,
            "start.html",
            status,
            session=session,
            csrf=self._auth.signer.csrf_token(session),
            auth_enabled=self._auth.keyring.enabled,
            can_start=may(principal, Scope.RUNS_START),
            values=values,
            models=[(m.value, m.label) for m in model_choices.offered(self._settings, principal)],
            research_modes=[(key, label) for key, (_, label) in RESEARCH_MODES.items()],
            recipe_modes=[(key, label) for key, (_, label) in RECIPE_MODES.items()],
            profile_saves=[(key, label) for key, (_, label) in PROFILE_SAVES.items()],
            request_id=request_id or str(uuid.uuid4()),
            sessions_served=self._sessions is not None,
            live_sessions=self._live_sessions(principal),
        )

    def _live_sessions(self, principal: Principal) -> list[tuple[str, str]]:
        """The principal's tenant's live sessions, newest first (one page), for the session
        field to offer: (name, what it is)."""
        if self._sessions is None or not may(principal, Scope.RUNS_READ):
            return []
        found, _ = self._sessions.list(0, "", list(LIVE_SESSION_STATES), 0, principal)
        return [(s.name, f"{KINDS.get(s.kind, '')} session by {s.created_by}") for s in found]


def _about_the_session(error: OutriderError) -> bool:
    """A refusal of the session the form named (a start names nothing else that can be
    missing)."""
    return isinstance(error, NotFound) or error.reason.startswith("SESSION_")
