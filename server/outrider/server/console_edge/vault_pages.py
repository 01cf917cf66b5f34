"""The console's Profiles and Credentials pages: metadata only (a credential's values are typed
into a form, handed to the core and never shown again, nor logged). "New profile" creates a
profile and starts its by-hand login run, then opens that run's page, where the live view lets
the person log in and hand back."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from outrider.server.console_edge.auth import CSRF_FIELD, ConsoleAuth, session_of
from outrider.server.console_edge.forms import Form, read_form
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.core.errors import NotFound
from outrider.server.core.names import run_id_from
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.vault.names import id_in_path
from outrider.v1 import credential_pb2, profile_pb2


class VaultPages:
    def __init__(self, runs: RunManager, pages: Pages, auth: ConsoleAuth) -> None:
        self._runs = runs
        self._pages = pages
        self._auth = auth

    def _context(self, request: Request) -> dict[str, object]:
        session = session_of(request)
        return {
            "session": session,
            "csrf": self._auth.signer.csrf_token(session),
            "auth_enabled": self._auth.keyring.enabled,
        }

    async def _form(self, request: Request) -> Form:
        form = await read_form(request)
        self._auth.check_change(request, session_of(request), form.get(CSRF_FIELD))
        return form

    # profiles

    async def profiles(self, request: Request) -> Response:
        principal = session_of(request).principal
        found, _ = self._runs.profiles.page(principal, 200, "")
        done = request.query_params.get("done", "")
        return self._pages.page(
            request, "profiles.html", profiles=found, done=done, **self._context(request)
        )

    async def new_profile(self, request: Request) -> Response:
        """Creates the profile (unless it exists) and starts its by-hand login run."""
        form = await self._form(request)
        principal = session_of(request).principal
        profile_id = form.get("profile_id").strip()
        check = profile_pb2.ProfileCheck(
            url=form.get("check_url").strip(), text=form.get("check_text").strip()
        )
        try:
            self._runs.profiles.get(principal, profile_id)
        except NotFound:
            self._runs.profiles.create(principal, profile_id, check)
        url = form.get("url").strip()
        started = await self._runs.start_profile_login(f"profiles/{profile_id}", url, [], principal)
        run_id = run_id_from(started.run.name)
        return RedirectResponse(f"{base_of(request)}/runs/{run_id}", 303)

    async def delete_profile(self, request: Request) -> Response:
        await self._form(request)
        profile_id = id_in_path(request.path_params["profileId"], "profiles")
        self._runs.profiles.delete(session_of(request).principal, profile_id)
        return RedirectResponse(f"{base_of(request)}/profiles?done=deleted", 303)

    # credentials

    async def credentials(self, request: Request) -> Response:
        principal = session_of(request).principal
        found, _ = self._runs.credentials.page(principal, 200, "")
        done = request.query_params.get("done", "")
        return self._pages.page(
            request, "credentials.html", credentials=found, done=done, **self._context(request)
        )

    async def set_credential(self, request: Request) -> Response:
        form = await self._form(request)
        secret = credential_pb2.CredentialSecret(
            username=form.get("username"),
            password=form.get("password"),
            totp_seed=form.get("totp_seed").strip(),
        )
        origins = [line.strip() for line in form.get("origins").splitlines() if line.strip()]
        self._runs.credentials.set(
            session_of(request).principal, form.get("name").strip(), origins, secret
        )
        return RedirectResponse(f"{base_of(request)}/credentials?done=saved", 303)

    async def delete_credential(self, request: Request) -> Response:
        await self._form(request)
        credential_id = id_in_path(request.path_params["credentialId"], "credentials")
        self._runs.credentials.delete(session_of(request).principal, credential_id)
        return RedirectResponse(f"{base_of(request)}/credentials?done=deleted", 303)
