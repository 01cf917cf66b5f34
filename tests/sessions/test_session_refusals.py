"""What sessions refuse, and to whom: bad requests with their field violations, a run saving to a
session's profile where it has none, another tenant's session (NOT_FOUND, byte for byte as a
missing one), and the limits on live sessions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest

from outrider.v1 import (
    profile_pb2,
    profile_service_pb2,
    profile_service_pb2_grpc,
    run_pb2,
    run_service_pb2,
    session_service_pb2,
)
from tests.conftest import HarnessFactory
from tests.security.tenants import two_tenants
from tests.sessions.support import AUTOMATE, create, create_request, run_in, seconds, sessions_stub
from tests.support.harness import RichError, rich_error

pytestmark = pytest.mark.timeout(60)
ON_SUCCESS = profile_pb2.PROFILE_SAVE_ON_SUCCESS


async def refused(call: Any) -> RichError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return rich_error(caught.value)


async def test_bad_creates_name_each_field(make_harness: HarnessFactory) -> None:
    harness = await make_harness()
    stub = sessions_stub(harness.channel)
    request = create_request(start_url="ftp://example.test/", idle=0.5, life=10 * 86_400)
    request.kind = 7  # type: ignore[assignment]
    error = await refused(stub.CreateSession(request))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert set(error.violations) == {"kind", "start_url", "idle_timeout", "max_life"}
    assert "1 s and 86400 s" in error.violations["max_life"]
    error = await refused(stub.CreateSession(create_request(idle=30, life=10)))
    assert list(error.violations) == ["idle_timeout"]  # longer than the maximum life
    research_page = create_request(kind=run_pb2.RUN_KIND_RESEARCH, start_url="http://x.test/")
    assert list((await refused(stub.CreateSession(research_page))).violations) == ["start_url"]
    labelled = create_request(labels={"Bad Key": "x"})
    assert list((await refused(stub.CreateSession(labelled))).violations) == ["labels['Bad Key']"]
    negative = create_request()
    negative.idle_timeout.CopyFrom(seconds(-5))
    assert list((await refused(stub.CreateSession(negative))).violations) == ["idle_timeout"]
    for kind, profile in ((run_pb2.RUN_KIND_RESEARCH, "profiles/abc"), (AUTOMATE, "abc/x")):
        profiled = create_request(kind=kind)
        profiled.profile = profile
        error = await refused(stub.CreateSession(profiled))
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT
        assert list(error.violations) == ["profile"]
    unknown = create_request()
    unknown.profile = "profiles/abc"
    error = await refused(stub.CreateSession(unknown))
    assert (error.code, error.message) == (grpc.StatusCode.NOT_FOUND, "profiles/abc does not exist")


async def test_runs_naming_a_bad_session_are_refused(make_harness: HarnessFactory) -> None:
    harness = await make_harness()
    research = await create(harness.channel, kind=run_pb2.RUN_KIND_RESEARCH)
    malformed = await refused(harness.runs.CreateRun(run_in("session-1")))
    assert malformed.code == grpc.StatusCode.INVALID_ARGUMENT
    assert list(malformed.violations) == ["options.session"]
    other_kind = await refused(harness.runs.CreateRun(run_in(research.name)))
    assert list(other_kind.violations) == ["options.session"]
    assert "research session" in other_kind.violations["options.session"]
    missing = await refused(harness.runs.CreateRun(run_in("sessions/" + "0" * 24)))
    assert (missing.code, missing.reason) == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
    # the streaming start names the field where its request has it, too
    automate = run_service_pb2.AutomateRequest(params=run_in("").automate)
    automate.options.session = "sessions/NOPE"
    streamed = await refused(harness.runs.Automate(automate).read())
    assert list(streamed.violations) == ["options.session"]


async def test_a_run_saves_only_to_a_profile_its_session_started_from(
    make_harness: HarnessFactory,
) -> None:
    """A run in a session names no profile; with profile_save it saves to the session's, so a
    session without one refuses it, on the field, in words, and a profile deleted since is
    NOT_FOUND at the start. Naming a profile stays refused."""
    harness = await make_harness()
    profiles = profile_service_pb2_grpc.ProfileServiceStub(harness.channel)
    await profiles.CreateProfile(profile_service_pb2.CreateProfileRequest(profile_id="crm"))
    bare = await create(harness.channel)
    from_profile = await create(harness.channel, profile="profiles/crm")
    for mode in (profile_pb2.PROFILE_SAVE_ON_SUCCESS, profile_pb2.PROFILE_SAVE_ALWAYS):
        saving = run_in(bare.name)
        saving.options.profile_save = mode
        error = await refused(harness.runs.CreateRun(saving))
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT
        assert list(error.violations) == ["options.profile_save"]
        assert "the session has no profile to save to" in error.violations["options.profile_save"]
    naming = run_in(from_profile.name)
    naming.options.profile, naming.options.profile_save = "profiles/crm", ON_SUCCESS
    error = await refused(harness.runs.CreateRun(naming))
    assert list(error.violations) == ["options.profile"]
    outside = run_in("")
    outside.options.profile_save = ON_SUCCESS
    error = await refused(harness.runs.CreateRun(outside))
    assert error.violations == {"options.profile_save": "needs a profile to save to"}
    saving = run_in(from_profile.name)
    saving.options.profile_save = ON_SUCCESS
    started = await harness.runs.CreateRun(saving)
    assert started.run.options.session == from_profile.name
    await profiles.DeleteProfile(profile_service_pb2.DeleteProfileRequest(name="profiles/crm"))
    error = await refused(harness.runs.CreateRun(saving))  # checked before the busy seat
    assert (error.code, error.message) == (grpc.StatusCode.NOT_FOUND, "profiles/crm does not exist")


async def test_another_tenants_session_is_not_found_like_a_missing_one(
    make_harness: HarnessFactory, tmp_path: Path
) -> None:
    keys = two_tenants(tmp_path)
    harness = await make_harness(keys_file=keys.file)
    stub = sessions_stub(harness.channel)
    alpha = await create(harness.channel, keys.bearer("alpha-1"))
    missing = alpha.name[:-4] + ("0000" if not alpha.name.endswith("0000") else "1111")

    async def errors_for(name: str) -> list[tuple[Any, ...]]:
        calls = [
            stub.GetSession(session_service_pb2.GetSessionRequest(name=name), metadata=beta),
            stub.EndSession(session_service_pb2.EndSessionRequest(name=name), metadata=beta),
            stub.StreamSessionEvents(
                session_service_pb2.StreamSessionEventsRequest(name=name), metadata=beta
            ).read(),
            harness.runs.CreateRun(run_in(name), metadata=beta),
        ]
        found = []
        for call in calls:
            error = await refused(call)
            found.append((error.code, error.reason, error.message.replace(name, "NAME")))
        return found

    beta = keys.bearer("beta-1")
    foreign, absent = await errors_for(alpha.name), await errors_for(missing)
    assert foreign == absent
    assert all(code == grpc.StatusCode.NOT_FOUND for code, _, _ in foreign)
    listed = await stub.ListSessions(session_service_pb2.ListSessionsRequest(), metadata=beta)
    assert list(listed.sessions) == []
    # the same tenant's other principal sees it and may run in it
    same = keys.bearer("alpha-2")
    request = session_service_pb2.GetSessionRequest(name=alpha.name)
    got = await stub.GetSession(request, metadata=same)
    assert got.session.tenant == "alpha" and got.session.created_by == "alpha-1"
    run = await harness.runs.CreateRun(run_in(alpha.name), metadata=same)
    assert run.run.tenant == "alpha"


async def test_live_sessions_are_capped_per_replica_per_tenant_and_per_principal(
    make_harness: HarnessFactory, tmp_path: Path
) -> None:
    keys = two_tenants(tmp_path)
    keys.add("capped", "gamma", ["runs.start", "runs.read"], max_concurrent_runs=1)
    from outrider.server.settings.sessions import SessionSettings

    harness = await make_harness(
        keys_file=keys.file, sessions=SessionSettings(max_live=3, tenant_max_live=1)
    )
    await create(harness.channel, keys.bearer("alpha-1"))
    tenant = await refused(create(harness.channel, keys.bearer("alpha-2")))
    assert (tenant.code, tenant.reason) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "TENANT_SESSION_LIMIT",
    )
    assert tenant.retry_delay
    await create(harness.channel, keys.bearer("capped"))
    principal = await refused(
        harness.runs.CreateRun(run_in("", hold=True), metadata=keys.bearer("capped"))
    )
    assert principal.reason == "PRINCIPAL_RUN_LIMIT"  # its session holds its one slot
    await create(harness.channel, keys.bearer("beta-1"))
    replica = await refused(create(harness.channel, keys.bearer("root")))
    assert (replica.code, replica.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "SESSION_LIMIT")


async def test_a_session_stream_ends_once_its_key_is_removed(
    make_harness: HarnessFactory, tmp_path: Path
) -> None:
    """As a run's stream does: the credential is checked again before each batch or heartbeat
    (1 s here)."""
    keys = two_tenants(tmp_path)
    harness = await make_harness(keys_file=keys.file, heartbeat_interval=1.0)
    session = await create(harness.channel, keys.bearer("alpha-2"), idle=60)
    stream = sessions_stub(harness.channel).StreamSessionEvents(
        session_service_pb2.StreamSessionEventsRequest(name=session.name),
        metadata=keys.bearer("alpha-2"),
    )
    first = await stream.read()
    assert first.event.HasField("session_started")
    keys.remove("alpha-2")
    assert harness.server.keyring.reload()
    error = await refused(_drain(stream))
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "CREDENTIAL_REVOKED")


async def _drain(stream: Any) -> None:
    while await stream.read() is not grpc.aio.EOF:
        pass
