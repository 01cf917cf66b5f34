"""ProfileService and CredentialService over gRPC with two tenants: a tenant sees and names only
its own profiles and credentials, and another tenant's answer is the same NOT_FOUND as for none
(also when a run names them); values are never returned; bad input gets field violations; the
scopes guard each service; a server without a vault key says so."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from outrider.server.settings.vault import VaultSettings
from outrider.v1 import credential_pb2, params_pb2, profile_pb2
from outrider.v1 import credential_service_pb2 as cs
from outrider.v1 import credential_service_pb2_grpc as csg
from outrider.v1 import profile_service_pb2 as ps
from outrider.v1 import profile_service_pb2_grpc as psg
from outrider.v1 import run_service_pb2 as rs
from tests.conftest import HarnessFactory
from tests.security.tenants import CALLER, Keys, two_tenants
from tests.support.harness import Harness, rich_error

SECRET = credential_pb2.CredentialSecret(
    username="ada", password="pw-canary-9", totp_seed="JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
)


async def refused(call: object) -> tuple[grpc.StatusCode, str, str, dict[str, str]]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    error = rich_error(caught.value)
    return error.code, error.reason, error.message, error.violations


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    (tmp_path / "keys").mkdir()
    return two_tenants(tmp_path / "keys")


async def stubs(harness: Harness) -> tuple[psg.ProfileServiceStub, csg.CredentialServiceStub]:
    return psg.ProfileServiceStub(harness.channel), csg.CredentialServiceStub(harness.channel)


async def test_each_tenant_sees_and_names_only_its_own(
    make_harness: HarnessFactory, keys: Keys
) -> None:
    harness = await make_harness(keys_file=keys.file)
    profiles, credentials = await stubs(harness)
    alice, bob = keys.bearer("alpha-1"), keys.bearer("beta-1")
    await profiles.CreateProfile(ps.CreateProfileRequest(profile_id="crm"), metadata=alice)
    set_request = cs.SetCredentialRequest(
        name="credentials/crm", origins=["https://crm.example"], secret=SECRET
    )
    made = await credentials.SetCredential(set_request, metadata=alice)
    assert made.created and made.credential.has_totp and "pw-canary-9" not in str(made)
    # the same name is free in the other tenant, and its own
    await profiles.CreateProfile(ps.CreateProfileRequest(profile_id="other"), metadata=bob)
    for name in ("profiles/crm", "profiles/never-made"):
        answer = await refused(profiles.GetProfile(ps.GetProfileRequest(name=name), metadata=bob))
        assert answer[:2] == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
        assert answer[2] == f"{name} does not exist"
    for name in ("credentials/crm", "credentials/never-made"):
        delete = credentials.DeleteCredential(cs.DeleteCredentialRequest(name=name), metadata=bob)
        assert (await refused(delete))[2] == f"{name} does not exist"
    listed = await profiles.ListProfiles(ps.ListProfilesRequest(), metadata=bob)
    assert [p.name for p in listed.profiles] == ["profiles/other"]
    assert (
        await credentials.ListCredentials(cs.ListCredentialsRequest(), metadata=bob)
    ).credentials == []
    for options in (
        params_pb2.RunOptions(profile="profiles/crm"),
        params_pb2.RunOptions(credentials=["credentials/crm"]),
    ):
        start = harness.runs.CreateRun(
            rs.CreateRunRequest(automate=params_pb2.AutomateParams(task="x"), options=options),
            metadata=bob,
        )
        assert (await refused(start))[:2] == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
    login = profiles.StartProfileLogin(
        ps.StartProfileLoginRequest(profile="profiles/crm", url="https://crm.example/"),
        metadata=bob,
    )
    assert (await refused(login))[0] == grpc.StatusCode.NOT_FOUND
    # the owner names them in a run; the run is started
    started = await harness.runs.CreateRun(
        rs.CreateRunRequest(
            automate=params_pb2.AutomateParams(task="x"),
            options=params_pb2.RunOptions(profile="profiles/crm", credentials=["credentials/crm"]),
        ),
        metadata=alice,
    )
    assert started.run.options.profile == "profiles/crm"


async def test_bad_input_is_told_field_by_field(make_harness: HarnessFactory) -> None:
    harness = await make_harness()
    profiles, credentials = await stubs(harness)
    await profiles.CreateProfile(ps.CreateProfileRequest(profile_id="crm"))
    again = await refused(profiles.CreateProfile(ps.CreateProfileRequest(profile_id="crm")))
    assert again[:2] == (grpc.StatusCode.ALREADY_EXISTS, "PROFILE_EXISTS")
    bad_check = ps.CreateProfileRequest(
        profile_id="x", check=profile_pb2.ProfileCheck(url="javascript:alert(1)", text="t")
    )
    assert list((await refused(profiles.CreateProfile(bad_check)))[3]) == ["check.url"]
    bad_origin = cs.SetCredentialRequest(
        name="credentials/x", origins=["https://a.example/login"], secret=SECRET
    )
    answer = await refused(credentials.SetCredential(bad_origin))
    assert list(answer[3]) == ["origins[0]"] and "pw-canary-9" not in answer[2]
    research = harness.runs.CreateRun(
        rs.CreateRunRequest(
            research=params_pb2.ResearchParams(query="q"),
            options=params_pb2.RunOptions(profile="profiles/crm"),
        )
    )
    assert list((await refused(research))[3]) == ["options.profile"]
    saving_nothing = harness.runs.CreateRun(
        rs.CreateRunRequest(
            automate=params_pb2.AutomateParams(task="x"),
            options=params_pb2.RunOptions(profile_save=profile_pb2.PROFILE_SAVE_ALWAYS),
        )
    )
    assert list((await refused(saving_nothing))[3]) == ["options.profile_save"]
    in_a_session = harness.runs.CreateRun(
        rs.CreateRunRequest(
            automate=params_pb2.AutomateParams(task="x"),
            options=params_pb2.RunOptions(profile="profiles/crm", session="sessions/" + "0" * 24),
        )
    )
    assert list((await refused(in_a_session))[3]) == ["options.profile"]


async def test_each_service_needs_its_scope(make_harness: HarnessFactory, tmp_path: Path) -> None:
    keys = Keys(tmp_path / "scoped.toml")
    keys.add("runner", "t", [s for s in CALLER if not s.endswith(".manage")])
    harness = await make_harness(keys_file=keys.file)
    profiles, credentials = await stubs(harness)
    who = keys.bearer("runner")
    for call in (
        profiles.ListProfiles(ps.ListProfilesRequest(), metadata=who),
        credentials.ListCredentials(cs.ListCredentialsRequest(), metadata=who),
    ):
        assert (await refused(call))[:2] == (grpc.StatusCode.PERMISSION_DENIED, "MISSING_SCOPE")


async def test_a_server_without_a_vault_key_says_so(make_harness: HarnessFactory) -> None:
    harness = await make_harness(vault=VaultSettings())
    profiles, credentials = await stubs(harness)
    for call in (
        profiles.ListProfiles(ps.ListProfilesRequest()),
        credentials.ListCredentials(cs.ListCredentialsRequest()),
        harness.runs.CreateRun(
            rs.CreateRunRequest(
                automate=params_pb2.AutomateParams(task="x"),
                options=params_pb2.RunOptions(profile="profiles/crm"),
            )
        ),
    ):
        answer = await refused(call)
        assert answer[:2] == (grpc.StatusCode.FAILED_PRECONDITION, "VAULT_NOT_CONFIGURED")
        assert "OUTRIDER_VAULT_KEYS" in answer[2]
