"""Profiles and credentials in the console, in Chromium, as a person uses them: save a
credential (its values never shown again), then "New profile": the console opens a browser with
no agent at the login page, the person takes it over in the live view, logs in with a password and
a one-time code, and hands back; the profile is saved, and a second run starts from it signed in
with no question to anyone. The password, the seed, the code and the session cookie are nowhere
but in the page. A session started from the session form with a profile (the form lists the
tenant's profiles, only for a browser session) starts signed in; a profile deleted after the form
was shown is refused at its field. Screenshots: tests/artifacts/console/profiles-*.png,
credentials.png, start-session-profile*.png."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import grpc
import pyotp
import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from outrider.server.settings.browser import BrowserSettings
from outrider.v1 import (
    credential_pb2,
    interaction_service_pb2_grpc,
    params_pb2,
    profile_pb2,
    run_pb2,
    run_service_pb2_grpc,
)
from outrider.v1 import credential_service_pb2 as cs
from outrider.v1 import credential_service_pb2_grpc as csg
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import profile_service_pb2 as ps
from outrider.v1 import profile_service_pb2_grpc as psg
from outrider.v1 import run_service_pb2 as rs
from tests.browser.secret_checks import leaks_in_files
from tests.console.support import (
    Console,
    accessibility_problems,
    capture_logs,
    chromium,
    serve,
    shot,
    two_tenants,
    where,
)
from tests.console.test_answering import tab_to
from tests.console.test_start_session import get_session, session_form
from tests.support.harness import eventually, settings_for_tests
from tests.support.login_site import PASSWORD, SEED, USER, LoginSite, login_site

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def console(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Console]:
    folder = tmp_path_factory.mktemp("console-profiles")
    async with AsyncExitStack() as stack:
        site: LoginSite = stack.enter_context(login_site())
        keys = two_tenants(folder)
        settings = settings_for_tests(
            folder / "data", rest_port=0, keys_file=keys.file, interaction_ttl=600.0,
            network_allow=site.url.removeprefix("http://"), browser=BrowserSettings(),
        )  # fmt: skip
        SITES.append(site)
        server, origin = await serve(stack, settings)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
        stack.push_async_callback(channel.close)
        yield Console(
            origin, keys, site.url, "", folder, await chromium(stack),
            run_service_pb2_grpc.RunServiceStub(channel),
            interaction_service_pb2_grpc.InteractionServiceStub(channel),
            server, capture_logs(stack),
        )  # fmt: skip


SITES: list[LoginSite] = []  # the module's login site (the fixture's)


async def save_credential(page: Page, console: Console) -> None:
    await page.goto(f"{console.base}/credentials")
    form = page.locator("form.stacked")
    await form.get_by_label("Name", exact=True).fill("acme")
    await form.get_by_label("Origins, one a line").fill(console.sites)
    await form.get_by_label("Username").fill(USER)
    await form.get_by_label("Password", exact=True).fill(PASSWORD)
    await form.get_by_label("TOTP seed").fill(SEED)
    await form.get_by_role("button", name="Save credential").click()
    await expect(page.locator("p.success")).to_contain_text("The credential was saved")
    row = page.locator("#credential-acme")
    await expect(row).to_contain_text("username password one-time code")
    await expect(row).to_contain_text(console.sites)
    content = await page.content()
    assert PASSWORD not in content and SEED not in content
    await shot(page, "credentials")
    assert await accessibility_problems(page) == []


async def log_in_by_hand(page: Page, console: Console) -> str:
    await page.goto(f"{console.base}/profiles")
    form = page.locator("form.stacked")
    await form.get_by_label("Name", exact=True).fill("acme")
    await form.get_by_label("Login page").fill(f"{console.sites}/login")
    await form.get_by_label("Signed-in check: page").fill(f"{console.sites}/account")
    await form.get_by_label("Signed-in check: text").fill("Sign out")
    await shot(page, "profiles-new")
    assert await accessibility_problems(page) == []
    await form.get_by_role("button", name="Open a browser to log in").click()
    await page.wait_for_url(f"{console.base}/runs/*")
    run_id = page.url.rsplit("/", 1)[1]
    controls = page.locator("#live-controls")
    await expect(controls).to_contain_text("The agent asks for a person", timeout=60_000)
    await expect(controls).to_contain_text("Log in for profiles/acme")
    await eventually(lambda: page.locator("#screen").evaluate("i => i.naturalWidth > 0"), 30)
    await controls.get_by_role("button", name="Take over").click()
    await expect(controls).to_contain_text("You have control of the browser")
    await tab_to(page, page.locator("#screen"))
    await page.keyboard.type(USER)  # into the autofocused email field
    await controls.get_by_role("button", name="Send Tab").click()
    await send_text(page, PASSWORD)  # the console's text box, into the focused password field
    await eventually(lambda: "/verify" in where(console, run_id), within=30)
    await send_text(page, pyotp.TOTP(SEED).now())
    await eventually(lambda: "/account" in where(console, run_id), within=30)
    await shot(page, "profiles-logged-in")
    await controls.get_by_role("button", name="Hand back").click()
    await expect(page.locator("#result")).to_contain_text("handed the browser back", timeout=60_000)
    return run_id


async def send_text(page: Page, text: str) -> None:
    controls = page.locator("#live-controls")
    await controls.get_by_label("Text").fill(text)
    await controls.get_by_role("button", name="Send text").click()
    await controls.get_by_role("button", name="Send Enter").click()


async def test_a_person_logs_in_once_and_the_next_run_starts_signed_in(console: Console) -> None:
    page = await console.signed_in("alice")
    await save_credential(page, console)
    login_run = await log_in_by_hand(page, console)
    ended = await console.ended("alice", login_run)
    assert ended.outcome.success and ended.outcome.profile_save.saved, ended.outcome
    await page.goto(f"{console.base}/profiles")
    row = page.locator("#profile-acme")
    await expect(row).to_contain_text(console.sites)
    await expect(row.locator("td").nth(3)).to_have_text("1")  # version 1
    await shot(page, "profiles-saved")
    automate = params_pb2.AutomateParams(
        task="Read my Acme account.", url=f"{console.sites}/account"
    )
    options = params_pb2.RunOptions(
        profile="profiles/acme", model=console.model("browser/credential_login.yaml")
    )
    created = await console.runs.CreateRun(
        rs.CreateRunRequest(automate=automate, options=options),
        metadata=console.keys.bearer("alice"),
    )
    run_id = created.run.name.removeprefix("runs/")
    second = await console.ended("alice", run_id)
    assert second.outcome.success, second.outcome
    asked = await console.interactions.ListInteractions(
        isv.ListInteractionsRequest(run=created.run.name), metadata=console.keys.bearer("alice")
    )
    assert list(asked.interactions) == []  # 0 questions to a person
    bob = await console.signed_in("bob")  # another tenant sees none of it
    await bob.goto(f"{console.base}/profiles")
    await expect(bob.locator("main")).to_contain_text("No profiles yet.")
    await bob.goto(f"{console.base}/credentials")
    await expect(bob.locator("main")).to_contain_text("No credentials yet.")
    console.server.store.flush()
    code = next(f["code"] for path, f in SITES[-1].received if path == "/verify")
    for secret in (PASSWORD, SEED, code, *SITES[-1].sessions):
        assert not any(secret in line for line in console.logs.lines), "a log line"
        assert leaks_in_files(secret, console.folder) == []  # store, WAL, prompts, artifacts
    await page.context.close()
    await bob.context.close()


SESSION_PAGE = re.compile(r"/sessions/([0-9a-f]{24})$")


async def signed_in_profile(console: Console, profile_id: str) -> str:
    """A profile saved by a run that logged in to the login site with a saved credential."""
    alice = console.keys.bearer("alice")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{console.server.port}") as channel:
        secret = credential_pb2.CredentialSecret(username=USER, password=PASSWORD, totp_seed=SEED)
        await csg.CredentialServiceStub(channel).SetCredential(
            cs.SetCredentialRequest(
                name="credentials/acme", origins=[console.sites], secret=secret
            ),
            metadata=alice,
        )
        await psg.ProfileServiceStub(channel).CreateProfile(
            ps.CreateProfileRequest(profile_id=profile_id), metadata=alice
        )
    name = f"profiles/{profile_id}"
    # the site takes a one-time code once: start when the current one is unused
    totp = pyotp.TOTP(SEED)
    await eventually(lambda: totp.now() not in SITES[-1].codes_used, within=40)
    automate = params_pb2.AutomateParams(
        task="Sign in to Acme and read who is signed in.", url=f"{console.sites}/login"
    )
    options = params_pb2.RunOptions(
        profile=name,
        profile_save=profile_pb2.PROFILE_SAVE_ON_SUCCESS,
        credentials=["credentials/acme"],
        model=console.model("browser/credential_login.yaml"),
    )
    created = await console.runs.CreateRun(
        rs.CreateRunRequest(automate=automate, options=options), metadata=alice
    )
    ended = await console.ended("alice", created.run.name.removeprefix("runs/"))
    assert ended.outcome.success and ended.outcome.profile_save.saved, ended.outcome
    return name


async def created_session(page: Page) -> str:
    await page.get_by_role("button", name="Start the session").click()
    await page.wait_for_url(SESSION_PAGE)
    match = SESSION_PAGE.search(page.url)
    assert match is not None
    return f"sessions/{match.group(1)}"


async def test_a_session_from_the_form_with_a_profile_starts_signed_in(console: Console) -> None:
    profile = await signed_in_profile(console, "session-acme")
    page = await session_form(console)
    select = page.get_by_label("Start from a profile")
    await expect(select).to_have_value("")  # none by default
    account = f"{console.sites}/account"
    await page.get_by_label("Start page").fill(account)
    await select.select_option(label="session-acme")
    await shot(page, "start-session-profile", full_page=False)
    assert await accessibility_problems(page) == []
    name = await created_session(page)
    made = await get_session(console, name)
    # the site sends a browser without its session cookie from /account to /login
    assert made.profile == profile
    assert (made.current_url, made.current_title) == (account, "Your Acme account")
    await expect(page.locator("#session-facts")).to_contain_text("Your Acme account")
    # a person uses its browser and hands it back: its state is saved to the profile
    await expect(page.get_by_label(re.compile("and save its state to"))).to_be_checked()
    await page.get_by_role("button", name="Use its browser yourself").click()
    await page.wait_for_url(re.compile(rf"{re.escape(console.base)}/runs/[0-9a-f]{{24}}$"))
    lent = page.url.rsplit("/", 1)[-1]
    controls = page.locator("#live-controls")
    await expect(controls).to_contain_text("The agent asks for a person", timeout=60_000)
    await controls.get_by_role("button", name="Take over").click()
    await expect(controls).to_contain_text("You have control of the browser")
    await controls.get_by_label("Note for the agent").fill("Checked the account")
    await controls.get_by_role("button", name="Hand back").click()
    ended = await console.ended("alice", lent)
    assert ended.outcome.success and ended.outcome.profile_save.saved, ended.outcome
    assert ended.outcome.profile_save.version == 2
    await page.goto(f"{console.base}/sessions/{name.removeprefix('sessions/')}")
    await page.get_by_role("button", name="End the session").click()
    await expect(page.locator("#session-facts")).to_contain_text("Ended")
    await page.context.close()


async def test_a_profile_deleted_meanwhile_is_refused_at_its_field(console: Console) -> None:
    alice = console.keys.bearer("alice")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{console.server.port}") as channel:
        profiles = psg.ProfileServiceStub(channel)
        await profiles.CreateProfile(
            ps.CreateProfileRequest(profile_id="gone-soon"), metadata=alice
        )
        page = await session_form(console)
        await page.get_by_label("Start page").fill(f"{console.sites}/account")
        await page.get_by_label("Labels").fill("team=growth")
        await page.get_by_label("Start from a profile").select_option(label="gone-soon")
        await profiles.DeleteProfile(
            ps.DeleteProfileRequest(name="profiles/gone-soon"), metadata=alice
        )
    async with page.expect_response(lambda r: r.request.method == "POST") as refused:
        await page.get_by_role("button", name="Start the session").click()
    assert (await refused.value).status == 404
    select = page.get_by_label("Start from a profile")
    await expect(select).to_have_attribute("aria-invalid", "true")
    await expect(select).to_have_value("profiles/gone-soon")
    await expect(page.locator("#error-profile")).to_contain_text(
        "The profile profiles/gone-soon does not exist"
    )
    await expect(page.get_by_label("Start page")).to_have_value(f"{console.sites}/account")
    await expect(page.get_by_label("Labels")).to_have_value("team=growth")
    await expect(page.get_by_role("alert")).to_contain_text("The session was not started")
    await shot(page, "start-session-profile-refused", full_page=False)
    assert await accessibility_problems(page) == []
    await page.context.close()


async def test_a_research_session_ignores_the_hidden_profile(console: Console) -> None:
    alice = console.keys.bearer("alice")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{console.server.port}") as channel:
        await psg.ProfileServiceStub(channel).CreateProfile(
            ps.CreateProfileRequest(profile_id="for-browsers"), metadata=alice
        )
    page = await session_form(console)
    select = page.get_by_label("Start from a profile")
    await select.select_option(label="for-browsers")
    await page.get_by_label(re.compile("^Research session")).check()
    await expect(select).to_be_hidden()
    name = await created_session(page)
    made = await get_session(console, name)
    assert made.kind == run_pb2.RUN_KIND_RESEARCH and made.profile == ""
    bob = await console.signed_in("bob")  # another tenant is offered none of alice's
    await bob.goto(f"{console.base}/start/session")
    await expect(bob.get_by_role("button", name="Start the session")).to_be_visible()
    await expect(bob.get_by_label("Start from a profile")).to_have_count(0)
    await page.context.close()
    await bob.context.close()
