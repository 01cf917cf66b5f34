"""ProfileService: each RPC translates its request to one core call (RunManager.profiles, or the
by-hand login run) and the result back."""

from __future__ import annotations

from typing import Any

import grpc

from outrider.server.core.runs.manager import RunManager
from outrider.server.core.vault.names import parse_profile_name
from outrider.server.grpc_edge.auth import caller
from outrider.server.grpc_edge.errors import unary
from outrider.v1 import profile_service_pb2 as ps
from outrider.v1 import profile_service_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]


class ProfileServicer(profile_service_pb2_grpc.ProfileServiceServicer):
    def __init__(self, runs: RunManager) -> None:
        self._runs = runs
        self._profiles = runs.profiles

    @unary
    async def CreateProfile(
        self, request: ps.CreateProfileRequest, context: Context
    ) -> ps.CreateProfileResponse:
        profile = self._profiles.create(caller(), request.profile_id, request.check)
        return ps.CreateProfileResponse(profile=profile)

    @unary
    async def GetProfile(
        self, request: ps.GetProfileRequest, context: Context
    ) -> ps.GetProfileResponse:
        profile_id = parse_profile_name(request.name)
        return ps.GetProfileResponse(profile=self._profiles.get(caller(), profile_id))

    @unary
    async def ListProfiles(
        self, request: ps.ListProfilesRequest, context: Context
    ) -> ps.ListProfilesResponse:
        profiles, token = self._profiles.page(caller(), request.page_size, request.page_token)
        return ps.ListProfilesResponse(profiles=profiles, next_page_token=token)

    @unary
    async def DeleteProfile(
        self, request: ps.DeleteProfileRequest, context: Context
    ) -> ps.DeleteProfileResponse:
        self._profiles.delete(caller(), parse_profile_name(request.name))
        return ps.DeleteProfileResponse()

    @unary
    async def StartProfileLogin(
        self, request: ps.StartProfileLoginRequest, context: Context
    ) -> ps.StartProfileLoginResponse:
        started = await self._runs.start_profile_login(
            request.profile, request.url, list(request.allowed_domains), caller()
        )
        return ps.StartProfileLoginResponse(run=started.run)
