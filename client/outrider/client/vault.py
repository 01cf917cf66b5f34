"""Profiles and credentials of the caller's tenant (ProfileService, CredentialService), as
`AsyncClient.profiles` and `AsyncClient.credentials`:

async with AsyncClient("localhost:50051", api_key=key) as client:
    await client.credentials.set("crm", ["https://crm.example"], username="ada", password=pw)
    await client.profiles.create("crm", check_url="https://crm.example/me", check_text="Sign out")
    run = await client.profiles.start_login("crm", url="https://crm.example/login")

A credential's values go in and never come back: no call returns them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta

import grpc

from outrider.client._grpc import UnaryCalls
from outrider.v1 import credential_pb2, profile_pb2, run_pb2
from outrider.v1 import credential_service_pb2 as cs
from outrider.v1 import credential_service_pb2_grpc as csg
from outrider.v1 import profile_service_pb2 as ps
from outrider.v1 import profile_service_pb2_grpc as psg

PROFILE_SAVES = {
    "": profile_pb2.PROFILE_SAVE_UNSPECIFIED,
    "never": profile_pb2.PROFILE_SAVE_NEVER,
    "on_success": profile_pb2.PROFILE_SAVE_ON_SUCCESS,
    "always": profile_pb2.PROFILE_SAVE_ALWAYS,
}


def profile_name(profile: str) -> str:
    return profile if profile.startswith("profiles/") else f"profiles/{profile}"


def credential_name(credential: str) -> str:
    return credential if credential.startswith("credentials/") else f"credentials/{credential}"


class AsyncProfiles(UnaryCalls):
    def __init__(
        self,
        channel: grpc.aio.Channel,
        metadata: Sequence[tuple[str, str]],
        deadline: timedelta | None,
    ) -> None:
        super().__init__(metadata, deadline)
        self._stub = psg.ProfileServiceStub(channel)  # type: ignore[no-untyped-call]

    async def create(
        self, profile_id: str, *, check_url: str = "", check_text: str = ""
    ) -> profile_pb2.Profile:
        check = profile_pb2.ProfileCheck(url=check_url, text=check_text)
        request = ps.CreateProfileRequest(profile_id=profile_id, check=check)
        return (await self._unary(self._stub.CreateProfile, request)).profile  # type: ignore[no-any-return]

    async def get(self, profile: str) -> profile_pb2.Profile:
        request = ps.GetProfileRequest(name=profile_name(profile))
        return (await self._unary(self._stub.GetProfile, request)).profile  # type: ignore[no-any-return]

    async def list(self, *, page_size: int = 0, page_token: str = "") -> ps.ListProfilesResponse:
        request = ps.ListProfilesRequest(page_size=page_size, page_token=page_token)
        return await self._unary(self._stub.ListProfiles, request)  # type: ignore[no-any-return]

    async def delete(self, profile: str) -> None:
        await self._unary(
            self._stub.DeleteProfile, ps.DeleteProfileRequest(name=profile_name(profile))
        )

    async def start_login(
        self, profile: str, *, url: str = "", allowed_domains: Iterable[str] = ()
    ) -> run_pb2.Run:
        """Starts the by-hand run where a person logs in (take it over with `client.browser`)."""
        request = ps.StartProfileLoginRequest(
            profile=profile_name(profile), url=url, allowed_domains=list(allowed_domains)
        )
        return (await self._unary(self._stub.StartProfileLogin, request)).run  # type: ignore[no-any-return]


class AsyncCredentials(UnaryCalls):
    def __init__(
        self,
        channel: grpc.aio.Channel,
        metadata: Sequence[tuple[str, str]],
        deadline: timedelta | None,
    ) -> None:
        super().__init__(metadata, deadline)
        self._stub = csg.CredentialServiceStub(channel)  # type: ignore[no-untyped-call]

    async def set(
        self,
        credential: str,
        origins: Iterable[str],
        *,
        username: str = "",
        password: str = "",
        totp_seed: str = "",
    ) -> cs.SetCredentialResponse:
        """Creates the credential or replaces it whole; the response says which."""
        secret = credential_pb2.CredentialSecret(
            username=username, password=password, totp_seed=totp_seed
        )
        request = cs.SetCredentialRequest(
            name=credential_name(credential), origins=list(origins), secret=secret
        )
        return await self._unary(self._stub.SetCredential, request)  # type: ignore[no-any-return]

    async def get(self, credential: str) -> credential_pb2.Credential:
        request = cs.GetCredentialRequest(name=credential_name(credential))
        return (await self._unary(self._stub.GetCredential, request)).credential  # type: ignore[no-any-return]

    async def list(self, *, page_size: int = 0, page_token: str = "") -> cs.ListCredentialsResponse:
        request = cs.ListCredentialsRequest(page_size=page_size, page_token=page_token)
        return await self._unary(self._stub.ListCredentials, request)  # type: ignore[no-any-return]

    async def delete(self, credential: str) -> None:
        request = cs.DeleteCredentialRequest(name=credential_name(credential))
        await self._unary(self._stub.DeleteCredential, request)

    async def uses(
        self, *, credential: str = "", run: str = "", page_size: int = 0, page_token: str = ""
    ) -> cs.ListCredentialUsesResponse:
        """The audit trail, newest first: every fill and every refused one."""
        request = cs.ListCredentialUsesRequest(
            credential=credential_name(credential) if credential else "",
            run=run,
            page_size=page_size,
            page_token=page_token,
        )
        return await self._unary(self._stub.ListCredentialUses, request)  # type: ignore[no-any-return]
