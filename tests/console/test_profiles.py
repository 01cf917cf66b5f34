"""Profiles and credentials in the console, in Chromium, as a person uses them: save a
credential (its values never shown again), then "New profile": the console opens a browser with
no agent at the login page, the person takes it over in the live view, logs in with a password and
a one-time code, and hands back; the profile is saved, and a second run starts from it signed in
with no question to anyone. The password, the seed, the code and the session cookie are nowhere
but in the page. Screenshots: tests/artifacts/console/profiles-*.png, credentials.png."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import grpc
import pyotp
import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from outrider.server.settings.browser import BrowserSettings
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import interaction_service_pb2_grpc, params_pb2, run_service_pb2_grpc
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
)
from tests.console.test_answering import tab_to
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


def where(console: Console, run_id: str) -> str:
    control = console.server.runs.browsers.of(run_id)
    return control.live.where() if control is not None and control.live is not None else ""


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
