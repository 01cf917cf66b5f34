"""Profiles in real Chromium: a run that logs in with a credential saves its browser state to a
profile (a session-only cookie, localStorage, IndexedDB), and the next run starts signed in with
no question and no login; two runs saving one profile: one save is refused and reported; an
expired login ends a run with PROFILE_NEEDS_LOGIN before any model call, or, on an interactive
run, a person logs in through a takeover and the run goes on. Nothing of the state is in plain
text anywhere. One server for the module; the tests run in order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pyotp
import pytest
import pytest_asyncio
from playwright.async_api import Error as PlaywrightError

from outrider.v1 import params_pb2, profile_pb2
from outrider.v1 import profile_service_pb2 as ps
from outrider.v1 import run_service_pb2 as rs
from tests.browser.secret_checks import leaks_in_files, leaks_in_messages, leaks_in_text
from tests.browser.takeover_kit import key_events, person
from tests.profiles.support import VaultServer, followed, named, questions, vault_server
from tests.sessions.support import create as create_session
from tests.sessions.support import end as end_session
from tests.support.harness import eventually
from tests.support.login_site import PASSWORD, SEED, USER
from tests.webhooks.receivers import Receiver
from tests.webhooks.support import Calls, webhook_settings

pytestmark = pytest.mark.asyncio(loop_scope="module")
ON_SUCCESS, ALWAYS = profile_pb2.PROFILE_SAVE_ON_SUCCESS, profile_pb2.PROFILE_SAVE_ALWAYS


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[VaultServer]:
    folder = tmp_path_factory.mktemp("profiles")
    async with vault_server(folder, webhooks=webhook_settings()) as started:
        await started.set_acme()
        yield started


async def signed_in_profile(server: VaultServer, profile_id: str) -> str:
    """A new profile with a check, saved by a run that logged in with the credential."""
    check = profile_pb2.ProfileCheck(url=f"{server.site.url}/account", text="Sign out")
    created = ps.CreateProfileRequest(profile_id=profile_id, check=check)
    await server.profiles.CreateProfile(created)
    name = f"profiles/{profile_id}"
    # A code a person typed in an earlier test is not in the vault's audit trail, and the site
    # refuses a code used once: the run starts once the current code is one the site has not seen.
    totp = pyotp.TOTP(SEED)
    await eventually(lambda: totp.now() not in server.site.codes_used, within=40)
    run, events = await server.run(
        "Sign in to Acme and read who is signed in.",
        f"{server.site.url}/login",
        credentials=["credentials/acme"],
        profile=name,
        profile_save=ON_SUCCESS,
    )
    assert run.outcome.success and run.outcome.profile_save.saved, run.outcome
    needs = named(events, "profile_needs_login")[0].profile_needs_login
    assert needs.credentials and not needs.asking  # version 0: signed out; it logs in itself
    saved = named(events, "profile_saved")[0].profile_saved
    assert saved.version == 1 and saved.cookie_count == 2  # pending and sid
    names = [e.WhichOneof("payload") for e in events]
    assert names.index("profile_saved") < len(names) - 2  # before complete and done
    return name


async def version(server: VaultServer, name: str) -> profile_pb2.Profile:
    response: ps.GetProfileResponse = await server.profiles.GetProfile(
        ps.GetProfileRequest(name=name)
    )
    return response.profile


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
    created = await server.harness.runs.CreateRun(
        rs.CreateRunRequest(
            automate=params_pb2.AutomateParams(
                task="Read my Acme account.", url=f"{server.site.url}/account", interactive=True
            ),
            options=params_pb2.RunOptions(profile=acme, profile_save=ON_SUCCESS),
        )
    )
    run = created.run.name
    streamed = asyncio.create_task(followed(server.harness, run))
    at_screen = person(server, run)  # type: ignore[arg-type]
    controls = server.harness.server.runs.browsers
    await eventually(lambda: pending_takeover(server, run), within=60)
    await at_screen.take_over()
    await at_screen.type(USER)
    await at_screen.send(key_events("Tab"))
    await at_screen.type(PASSWORD)
    await at_screen.send(key_events("Enter"))
    await eventually(lambda: "/verify" in where(controls, run), within=30)
    # a person types once the field is there: the URL commits before the page is parsed
    await eventually(lambda: has_focus(controls, run, "code"), within=30)
    # the site takes a code once: wait out the step whose code the credential login filled
    totp = pyotp.TOTP(SEED)
    await eventually(lambda: totp.now() not in server.site.codes_used, within=40)
    await at_screen.type(totp.now())
    await at_screen.send(key_events("Enter"))
    try:
        await eventually(lambda: "/account" in where(controls, run), within=30)
    except AssertionError:
        got = [(path, fields.get("code")) for path, fields in server.site.received[-3:]]
        raise AssertionError(
            f"not signed in at {where(controls, run)}; the site got {got}"
        ) from None
    await at_screen.hand_back("Signed in again.")
    events = await asyncio.wait_for(streamed, 120)
    ended = (await server.harness.runs.GetRun(rs.GetRunRequest(name=run))).run
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


def pending_takeover(server: VaultServer, run: str) -> bool:
    control = server.harness.server.runs.browsers.of(run.removeprefix("runs/"))
    return control is not None and control.current is not None


def where(controls: object, run: str) -> str:
    control = controls.of(run.removeprefix("runs/"))  # type: ignore[attr-defined]
    return control.live.where() if control is not None and control.live is not None else ""


async def has_focus(controls: object, run: str, field: str) -> bool:
    """Whether the field named `field` has the keyboard on the run's page, read from the page
    itself, as a person sees where the caret is (False while it loads)."""
    control = controls.of(run.removeprefix("runs/"))  # type: ignore[attr-defined]
    page = control.live._session.current if control is not None and control.live else None
    if page is None:
        return False
    try:
        return bool(await page.evaluate("(f) => document.activeElement?.name === f", field))
    except PlaywrightError:  # navigating
        return False


def assert_nowhere(server: VaultServer, secret: str, events: list) -> None:  # type: ignore[type-arg]
    server.harness.server.store.flush()
    assert leaks_in_messages(secret, events) == []
    assert leaks_in_text(secret, server.transcript.read_text()) == []
    assert not any(secret in line for line in server.logs.lines)
    assert leaks_in_files(secret, server.folder / "data") == []
