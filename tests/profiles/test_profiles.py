"""Profiles in real Chromium: a run that logs in with a credential saves its browser state to a
profile (a session-only cookie, localStorage, IndexedDB), and the next run starts signed in with
no question and no login; two runs saving one profile: one save is refused and reported; an
expired login ends a run with PROFILE_NEEDS_LOGIN before any model call, or, on an interactive
run, a person logs in through a takeover and the run goes on. Nothing of the state is in plain
text anywhere. One server for the module; the tests run in order."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
import pytest_asyncio

from outrider.v1 import params_pb2
from outrider.v1 import profile_service_pb2 as ps
from outrider.v1 import run_service_pb2 as rs
from tests.browser.secret_checks import leaks_in_files, leaks_in_messages, leaks_in_text
from tests.profiles.support import (
    ALWAYS,
    ON_SUCCESS,
    VaultServer,
    followed,
    named,
    questions,
    run_logged_in_by_hand,
    signed_in_profile,
    vault_server,
    version,
)
from tests.sessions.support import create as create_session
from tests.sessions.support import end as end_session
from tests.support.harness import eventually
from tests.support.login_site import PASSWORD, SEED
from tests.webhooks.receivers import Receiver
from tests.webhooks.support import Calls, webhook_settings

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[VaultServer]:
    folder = tmp_path_factory.mktemp("profiles")
    async with vault_server(folder, webhooks=webhook_settings()) as started:
        await started.set_acme()
        yield started


def model_calls(server: VaultServer, task: str) -> int:
    lines = server.transcript.read_text().splitlines() if server.transcript.exists() else []
    return sum(1 for line in lines if task in line)


async def test_a_saved_login_lets_the_next_run_start_signed_in(server: VaultServer) -> None:
    acme = await signed_in_profile(server, "first")
    profile = await version(server, acme)
    assert profile.version == 1 and server.site.url in profile.origins and profile.writer == ""
    sign_ins = server.site.sign_ins
    task = "Read my Acme account."
    calls_before = model_calls(server, task)
    second, events = await server.run(task, f"{server.site.url}/account", profile=acme)
    assert second.outcome.success, second.outcome
    assert questions(events) == 0 and named(events, "credential_used") == []
    assert named(events, "profile_needs_login") == [] and server.site.sign_ins == sign_ins
    loaded = named(events, "profile_loaded")[0].profile_loaded
    assert loaded.version == 1 and loaded.cookie_count == 2 and not loaded.writer
    # plan, the answer (after at most two waits for the page's IndexedDB), validation: no login
    assert 3 <= model_calls(server, task) - calls_before <= 5
    assert not second.outcome.HasField("profile_save")  # it did not ask to save
    for secret in (*server.site.sessions, PASSWORD, SEED):
        assert_nowhere(server, secret, events)


async def test_two_runs_saving_one_profile_one_is_refused_and_told(server: VaultServer) -> None:
    await server.profiles.CreateProfile(ps.CreateProfileRequest(profile_id="busy"))
    acme = "profiles/busy"
    busy = await server.harness.runs.CreateRun(
        rs.CreateRunRequest(
            automate=params_pb2.AutomateParams(
                task="Keep the profile busy.", url=f"{server.site.url}/account"
            ),
            options=params_pb2.RunOptions(profile=acme, profile_save=ALWAYS),
        )
    )
    await eventually(lambda: version_writer(server, acme, busy.run.name), within=60)
    quick, events = await server.run(
        "Touch the profile quickly.",
        f"{server.site.url}/account",
        profile=acme,
        profile_save=ON_SUCCESS,
    )
    assert quick.outcome.success  # the task did its work; the save is what was refused
    refused = quick.outcome.profile_save
    assert not refused.saved and refused.refusal_reason == "PROFILE_LEASE_HELD"
    assert busy.run.name in refused.message
    assert not named(events, "profile_loaded")[0].profile_loaded.writer
    (server.hold / "busy").touch()
    busy_events = await followed(server.harness, busy.run.name)
    saved = named(busy_events, "profile_saved")[0].profile_saved
    assert saved.saved and saved.version == 1
    assert (await version(server, acme)).version == 1


async def version_writer(server: VaultServer, name: str, run: str) -> bool:
    return (await version(server, name)).writer == run


async def test_an_expired_login_fails_fast_when_nobody_can_log_in(server: VaultServer) -> None:
    """...and the tenant's endpoint is told a person must log in (profile.login_required), once:
    not for the earlier run that logged in with its credential."""
    receiver = Receiver().start()
    try:
        calls = Calls(server.harness.channel)
        _, secret = await calls.endpoint(receiver.url, "profile.login_required")
        receiver.secrets.append(secret)
        acme = await signed_in_profile(server, "expiring")
        server.site.expire()
        task = "Read my Acme account; nobody is there."
        run, events = await server.run(task, f"{server.site.url}/account", profile=acme)
        assert run.outcome.error_code == "PROFILE_NEEDS_LOGIN", run.outcome
        needs = named(events, "profile_needs_login")[0].profile_needs_login
        assert not needs.asking and not needs.credentials and "Sign out" in needs.reason
        assert model_calls(server, task) == 0
        await eventually(lambda: receiver.deliveries != [], within=30)
        [told] = receiver.deliveries
        assert told.type == "profile.login_required" and told.verified == (True,)
        assert told.data == {"profile": acme, "origin": server.site.url, "run": run.name}
    finally:
        receiver.stop()


async def test_an_expired_login_asks_a_person_on_an_interactive_run(server: VaultServer) -> None:
    acme = await signed_in_profile(server, "relogin")
    server.site.expire()
    ended, events = await run_logged_in_by_hand(
        server,
        params_pb2.AutomateParams(
            task="Read my Acme account.", url=f"{server.site.url}/account", interactive=True
        ),
        params_pb2.RunOptions(profile=acme, profile_save=ON_SUCCESS),
    )
    assert ended.outcome.success and ended.outcome.profile_save.saved, ended.outcome
    assert named(events, "profile_needs_login")[0].profile_needs_login.asking
    assert len(named(events, "takeover_ended")) == 1
    assert_nowhere(server, PASSWORD, events)


async def test_a_session_starts_its_browser_from_a_profile(server: VaultServer) -> None:
    acme = await signed_in_profile(server, "for-a-session")
    used_before = (await version(server, acme)).last_used_time.ToMicroseconds()
    sign_ins = server.site.sign_ins
    account = f"{server.site.url}/account"
    signed_in = await create_session(server.harness.channel, start_url=account, profile=acme)
    signed_out = await create_session(server.harness.channel, start_url=account)
    try:
        assert signed_in.profile == acme and signed_out.profile == ""
        # the site sends a browser without its session cookie from /account to /login
        assert (signed_in.current_url, signed_in.current_title) == (account, "Your Acme account")
        assert signed_out.current_url == f"{server.site.url}/login"
        assert server.site.sign_ins == sign_ins  # no login: the profile's cookies went along
        profile = await version(server, acme)
        assert profile.version == 1 and profile.writer == ""  # read only: no lease, no save
        assert profile.last_used_time.ToMicroseconds() > used_before
    finally:
        for session in (signed_in, signed_out):
            await end_session(server.harness.channel, session.name)
    for secret in server.site.sessions:
        assert_nowhere(server, secret, [])


async def test_a_session_names_only_a_profile_of_its_tenant(server: VaultServer) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await create_session(server.harness.channel, profile="profiles/never-made")
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def assert_nowhere(server: VaultServer, secret: str, events: list) -> None:  # type: ignore[type-arg]
    server.harness.server.store.flush()
    assert leaks_in_messages(secret, events) == []
    assert leaks_in_text(secret, server.transcript.read_text()) == []
    assert not any(secret in line for line in server.logs.lines)
    assert leaks_in_files(secret, server.folder / "data") == []
