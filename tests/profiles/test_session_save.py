"""A session saves its browser state back to the profile it started from, in real Chromium: the
site expires the login the session's browser started with, a run in the session logs in again
(with the credential, or a person by hand through a takeover) and saves with profile_save and no
profile named; a fresh run naming the profile then starts signed in. The session's saves follow
one another; a save over a version another run saved meanwhile is refused and reported. One
server for the module; the tests run in order."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from outrider.v1 import params_pb2, profile_pb2, run_event_pb2
from tests.profiles.support import (
    ALWAYS,
    ON_SUCCESS,
    VaultServer,
    named,
    questions,
    run_logged_in_by_hand,
    signed_in_profile,
    unseen_code,
    vault_server,
    version,
)
from tests.sessions.support import create as create_session
from tests.sessions.support import end as end_session

pytestmark = pytest.mark.asyncio(loop_scope="module")
QUICK = "Touch the profile quickly."  # runs that only finish (credential_login.yaml)
IN_SESSION = "Finish in the session."


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[VaultServer]:
    async with vault_server(tmp_path_factory.mktemp("session-save")) as started:
        await started.set_acme()
        yield started


async def test_a_run_in_a_session_logs_in_again_and_saves_the_sessions_profile(
    server: VaultServer,
) -> None:
    acme = await signed_in_profile(server, "kept")
    account = f"{server.site.url}/account"
    session = await create_session(server.harness.channel, start_url=account, profile=acme)
    try:
        server.site.expire()  # the login the session's browser started with is over
        await unseen_code(server)
        sign_ins = server.site.sign_ins
        relogin, events = await server.run(
            "Sign in to Acme and read who is signed in.",
            f"{server.site.url}/login",
            session=session.name,
            credentials=["credentials/acme"],
            profile_save=ON_SUCCESS,
        )
        assert relogin.outcome.success, relogin.outcome
        assert server.site.sign_ins == sign_ins + 1
        assert_saved(relogin.outcome.profile_save, acme, 2)
        assert_saved_before_the_end(events)
        assert named(events, "profile_loaded") == []  # the session's browser holds the state
        assert (await version(server, acme)).writer == ""  # the lease was given back
        # the session's next save follows its own last one
        touched, _ = await server.run(
            IN_SESSION, account, session=session.name, profile_save=ALWAYS
        )
        assert_saved(touched.outcome.profile_save, acme, 3)
        # a run outside the session saves the profile: the session's state is older now
        outside, _ = await server.run(QUICK, account, profile=acme, profile_save=ALWAYS)
        assert_saved(outside.outcome.profile_save, acme, 4)
        late, _ = await server.run(IN_SESSION, account, session=session.name, profile_save=ALWAYS)
        refused = late.outcome.profile_save
        assert late.outcome.success and not refused.saved, late.outcome
        assert refused.refusal_reason == "PROFILE_VERSION_CONFLICT"
        assert "version 4 since version 3" in refused.message
    finally:
        await end_session(server.harness.channel, session.name)
    assert (await version(server, acme)).version == 4
    await assert_a_fresh_run_starts_signed_in(server, acme, 4)


async def test_a_person_logs_in_again_by_hand_in_a_session_and_saves(server: VaultServer) -> None:
    acme = await signed_in_profile(server, "by-hand")
    account = f"{server.site.url}/account"
    session = await create_session(server.harness.channel, start_url=account, profile=acme)
    try:
        server.site.expire()
        ended, events = await run_logged_in_by_hand(
            server,
            params_pb2.AutomateParams(
                task="Log in again", url=f"{server.site.url}/login", interactive=True
            ),
            params_pb2.RunOptions(session=session.name, by_hand=True, profile_save=ON_SUCCESS),
        )
        assert ended.outcome.success, ended.outcome
        assert_saved(ended.outcome.profile_save, acme, 2)
        assert_saved_before_the_end(events)
    finally:
        await end_session(server.harness.channel, session.name)
    await assert_a_fresh_run_starts_signed_in(server, acme, 2)


def assert_saved(report: profile_pb2.ProfileSaved, profile: str, saved_as: int) -> None:
    assert (report.profile, report.saved, report.version) == (profile, True, saved_as), report
    assert report.cookie_count >= 1  # the new sign-in's cookie


def assert_saved_before_the_end(events: list[run_event_pb2.RunEvent]) -> None:
    names = [e.WhichOneof("payload") for e in events]
    assert names.count("profile_saved") == 1
    assert names.index("profile_saved") < len(names) - 2  # before complete and done


async def assert_a_fresh_run_starts_signed_in(
    server: VaultServer, profile: str, saved_as: int
) -> None:
    sign_ins = server.site.sign_ins
    fresh, events = await server.run(
        "Read my Acme account.", f"{server.site.url}/account", profile=profile
    )
    assert fresh.outcome.success, fresh.outcome
    assert named(events, "profile_loaded")[0].profile_loaded.version == saved_as
    assert named(events, "profile_needs_login") == [] and questions(events) == 0
    assert server.site.sign_ins == sign_ins  # nobody logged in: the saved login held
