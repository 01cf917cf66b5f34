"""Starting a session from the console (/start/session) and the session's page (/sessions/{id}):
the same core call as the API's create (SessionManager.create: the same scope, runs.start, and
the same checks), a refused create shown again with what was wrong next to its field, and, once
made, the session's page: its name, state, idle timeout and maximum life, its runs, a way to
start a run in it, and a way for a person to use its browser between runs (a by-hand run in it).

A create sent twice (a double click, a reload of the answer) makes one session: the form's
request id is the create's request id (the core's idempotent creates, held by the store across
replicas and racing sends alike)."""

from __future__ import annotations

import uuid

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from outrider.server.console_edge.auth import CSRF_FIELD, ConsoleAuth, session_of
from outrider.server.console_edge.forms import read_form
from outrider.server.console_edge.session_form import (
    ask_of,
    profile_choices,
    session_values,
    session_view,
)
from outrider.server.console_edge.start_form import FormProblem, StartValues, note_violations
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.console_edge.views import may, run_view
from outrider.server.core import request_ids
from outrider.server.core.error_statuses import http_status
from outrider.server.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    OutriderError,
    PermissionDenied,
)
from outrider.server.core.names import session_id_from, session_id_in_path
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.core.vault.profiles import Profiles
from outrider.server.settings.sessions import SessionSettings
from outrider.v1 import profile_pb2


class SessionPages:
    def __init__(
        self,
        sessions: SessionManager,
        pages: Pages,
        auth: ConsoleAuth,
        limits: SessionSettings,
        profiles: Profiles,
    ) -> None:
        self._sessions = sessions
        self._pages = pages
        self._auth = auth
        self._limits = limits
        self._profiles = profiles  # the form's profile select lists the tenant's

    async def form(self, request: Request) -> Response:
        kind = request.query_params.get("kind", "browser")
        return self._form(request, StartValues(kind=kind if kind == "research" else "browser"))

    async def create(self, request: Request) -> Response:
        signed_in = session_of(request)
        form = await read_form(request)
        self._auth.check_change(request, signed_in, form.get(CSRF_FIELD))
        values = session_values(form)
        request_id = request_ids.check_request_id(form.get("request_id"), "request_id")
        try:
            ask = ask_of(form)
            created = await self._sessions.create(
                ask.kind,
                ask.start_url,
                ask.durations,
                ask.labels,
                ask.profile,
                signed_in.principal,
                request_id or str(uuid.uuid4()),
            )
        except FormProblem as problem:
            values.errors[problem.field] = str(problem)
            return self._form(request, values, 400)
        except InvalidArgument as error:
            note_violations(values, error)
            return self._form(request, values, 400)
        except NotFound as error:  # the profile, deleted since the form was shown
            values.errors["profile"] = error.message
            return self._form(request, values, http_status(error))
        except PermissionDenied:
            raise  # an error page: the form was not theirs to send
        except OutriderError as error:  # a limit, the server full or stopping
            values.problems.append(error.message)
            return self._form(request, values, http_status(error), request_id)
        made = session_id_from(created.session.name)
        return RedirectResponse(f"{base_of(request)}/sessions/{made}", 303)

    async def page(self, request: Request) -> Response:
        return self._session_page(request, session_id_in_path(request.path_params["sessionId"]))

    async def lend_browser(self, request: Request) -> Response:
        """Lends the idle session's browser to the person (a by-hand run in it) and opens that
        run's page, where they take over, and hand back with a note for the next run."""
        signed_in = session_of(request)
        form = await read_form(request)
        self._auth.check_change(request, signed_in, form.get(CSRF_FIELD))
        session_id = session_id_in_path(request.path_params["sessionId"])
        request_id = request_ids.check_request_id(form.get("request_id"), "request_id")
        try:
            started = await self._sessions.lend_browser(
                session_id,
                signed_in.principal,
                request_id or str(uuid.uuid4()),
                save_profile=form.get("save_profile") == "on",
            )
        except PermissionDenied:
            raise  # an error page: the form was not theirs to send
        except OutriderError as error:  # busy, ended meanwhile, the server full
            return self._session_page(request, session_id, error.message, http_status(error))
        run_id = started.run.name.removeprefix("runs/")
        return RedirectResponse(f"{base_of(request)}/runs/{run_id}", 303)

    def _session_page(
        self, request: Request, session_id: str, problem: str = "", status: int = 200
    ) -> Response:
        signed_in = session_of(request)
        record = self._sessions.get(session_id, signed_in.principal)
        runs = self._sessions.runs_of(session_id, signed_in.principal)
        return self._pages.page(
            request,
            "session.html",
            status,
            session=signed_in,
            csrf=self._auth.signer.csrf_token(signed_in),
            auth_enabled=self._auth.keyring.enabled,
            can_start=may(signed_in.principal, Scope.RUNS_START),
            can_end=may(signed_in.principal, Scope.RUNS_CANCEL),
            shown=session_view(record),
            runs=[run_view(run, signed_in.principal) for run in runs],
            problem=problem,
            request_id=str(uuid.uuid4()),
        )

    async def end(self, request: Request) -> Response:
        signed_in = session_of(request)
        form = await read_form(request)
        self._auth.check_change(request, signed_in, form.get(CSRF_FIELD))
        session_id = session_id_in_path(request.path_params["sessionId"])
        reason = form.get("reason").strip() or f"ended in the console by {signed_in.principal.id}"
        await self._sessions.end(session_id, reason, signed_in.principal)
        return RedirectResponse(f"{base_of(request)}/sessions/{session_id}", 303)

    def _form(
        self, request: Request, values: StartValues, status: int = 200, request_id: str = ""
    ) -> Response:
        signed_in = session_of(request)
        return self._pages.page(
            request,
            "start_session.html",
            status,
            session=signed_in,
            csrf=self._auth.signer.csrf_token(signed_in),
            auth_enabled=self._auth.keyring.enabled,
            can_start=may(signed_in.principal, Scope.RUNS_START),
            values=values,
            limits=self._limits,
            profiles=profile_choices(
                self._listed_profiles(signed_in.principal), values.get("profile")
            ),
            request_id=request_id or str(uuid.uuid4()),
        )

    def _listed_profiles(self, principal: Principal) -> list[profile_pb2.Profile]:
        """The tenant's profiles; none where the sign-in may not list them or there is no vault
        (the form then offers no profile)."""
        try:
            return self._profiles.page(principal, 200, "")[0]
        except (PermissionDenied, FailedPrecondition):
            return []
