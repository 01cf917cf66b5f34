"""The REST resources of profiles and credentials: each route translates a request to one core
call (RunManager.profiles, .credentials, the by-hand login run) and the result back. A
credential's values go in (PUT) and never come out."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from outrider.server.core.runs.manager import RunManager
from outrider.server.core.vault.credentials import Credentials
from outrider.server.core.vault.names import id_in_path, profile_name
from outrider.server.core.vault.profiles import Profiles
from outrider.server.rest_edge import queries
from outrider.server.rest_edge.auth import principal_of
from outrider.server.rest_edge.bodies import read_object
from outrider.server.rest_edge.fields import Reader
from outrider.server.rest_edge.wire import to_json
from outrider.v1 import credential_pb2, profile_pb2


class VaultRoutes:
    def __init__(self, runs: RunManager) -> None:
        self._runs = runs

    @property
    def _profiles(self) -> Profiles:
        return self._runs.profiles

    @property
    def _credentials(self) -> Credentials:
        return self._runs.credentials

    # profiles

    async def list_profiles(self, request: Request) -> Response:
        page = queries.page(request)
        found, token = self._profiles.page(principal_of(request), page.size, page.token)
        return JSONResponse({"profiles": [to_json(p) for p in found], "nextPageToken": token})

    async def create_profile(self, request: Request) -> Response:
        read = Reader(await read_object(request))
        profile_id = read.string("profileId")
        check = read.nested("check")
        made = profile_pb2.ProfileCheck(url=check.string("url"), text=check.string("text"))
        read.check()
        profile = self._profiles.create(principal_of(request), profile_id, made)
        return JSONResponse(to_json(profile), 201)

    async def get_profile(self, request: Request) -> Response:
        profile = self._profiles.get(principal_of(request), _profile_id(request))
        return JSONResponse(to_json(profile))

    async def delete_profile(self, request: Request) -> Response:
        self._profiles.delete(principal_of(request), _profile_id(request))
        return Response(status_code=204)

    async def login(self, request: Request) -> Response:
        read = Reader(await read_object(request, required=False))
        url, allowed = read.string("url"), read.strings("allowedDomains")
        read.check()
        name = profile_name(_profile_id(request))
        started = await self._runs.start_profile_login(name, url, allowed, principal_of(request))
        return JSONResponse(to_json(started.run), 201)

    # credentials

    async def list_credentials(self, request: Request) -> Response:
        page = queries.page(request)
        found, token = self._credentials.page(principal_of(request), page.size, page.token)
        return JSONResponse({"credentials": [to_json(c) for c in found], "nextPageToken": token})

    async def set_credential(self, request: Request) -> Response:
        read = Reader(await read_object(request))
        origins = read.strings("origins")
        secret = credential_pb2.CredentialSecret(
            username=read.string("username"),
            password=read.string("password"),
            totp_seed=read.string("totpSeed"),
        )
        read.check()
        credential_id = id_in_path(request.path_params["credentialId"], "credentials")
        made, created = self._credentials.set(principal_of(request), credential_id, origins, secret)
        return JSONResponse(to_json(made), 201 if created else 200)

    async def get_credential(self, request: Request) -> Response:
        credential_id = id_in_path(request.path_params["credentialId"], "credentials")
        return JSONResponse(to_json(self._credentials.get(principal_of(request), credential_id)))

    async def delete_credential(self, request: Request) -> Response:
        credential_id = id_in_path(request.path_params["credentialId"], "credentials")
        self._credentials.delete(principal_of(request), credential_id)
        return Response(status_code=204)

    async def credential_uses(self, request: Request) -> Response:
        page = queries.page(request)
        query = request.query_params
        uses, token = self._credentials.uses(
            principal_of(request),
            query.get("credential", ""),
            query.get("run", ""),
            page.size,
            page.token,
        )
        return JSONResponse({"uses": [to_json(u) for u in uses], "nextPageToken": token})


def _profile_id(request: Request) -> str:
    return id_in_path(request.path_params["profileId"], "profiles")
