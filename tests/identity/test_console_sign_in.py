"""People sign in to the console through the IdP, in Chromium, on the IdP's own login page: each
sees their own tenant's runs, answers and declines a takeover as themselves (resolved_by), and a
person without a mapped group or outside the allowed email domains is refused. Signing out ends
the IdP's session too. Screenshots go to tests/artifacts/console/ (docs/identity.md shows some
of them)."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from typing import Any

import grpc
import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from outrider.server.telemetry.logs import TextFormatter
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import interaction_service_pb2_grpc, params_pb2, run_service_pb2_grpc
from outrider.v1 import run_service_pb2 as rs
from tests.console.support import LogLines, chromium, shot
from tests.identity.support import API, PEOPLE, IdentityCase
from tests.support.harness import eventually

pytestmark = pytest.mark.asyncio(loop_scope="module")
LOOPBACK_ONLY = re.compile(r"^(?!https?://127\.0\.0\.1[:/])")  # the IdP's page imports web fonts


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with AsyncExitStack() as stack:
        yield await chromium(stack)


@pytest.fixture
def log() -> Iterator[LogLines]:
    """The server's log lines as its text format writes them (with the principal)."""
    lines = LogLines()
    lines.setFormatter(TextFormatter())
    root = logging.getLogger()
    previous = root.level
    root.setLevel(logging.INFO)
    root.addHandler(lines)
    yield lines
    root.removeHandler(lines)
    root.setLevel(previous)


async def person_token(case: IdentityCase, login: str) -> tuple[tuple[str, str], ...]:
    """What a person's application would send: an access token with the person's claims."""
    person = PEOPLE[login]
    claims = {"sub": login, "aud": API, "scope": "runs.start runs.read"}
    token = case.idp.mint(claims | {"tenant": person["tenant"], "groups": person["groups"]})
    return (("authorization", f"Bearer {token}"),)


async def start_run(case: IdentityCase, login: str, plan: dict[str, Any]) -> str:
    async with grpc.aio.insecure_channel(case.grpc_target) as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        params = params_pb2.AutomateParams(task=f"{login}'s errand", interactive=True)
        params.data.update(plan)
        created = await runs.CreateRun(
            rs.CreateRunRequest(automate=params), metadata=await person_token(case, login)
        )
    return str(created.run.name).removeprefix("runs/")


async def signed_in(browser: Browser, case: IdentityCase, login: str, name: str = "") -> Page:
    """A fresh browser profile through the console's sign-in button and the IdP's login page."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    await context.route(LOOPBACK_ONLY, lambda route: route.abort())
    page = await context.new_page()
    await page.goto(f"{case.origin}/console/")
    await page.get_by_role("link", name="Sign in with the test IdP").click()
    await page.locator("input[name=login]").wait_for()
    await page.locator("input[name=login]").fill(login)
    await page.locator("input[name=password]").fill("any password will do")
    if name:
        await shot(page, f"{name}-idp-login")
    await page.get_by_role("button", name="Sign-in").click()
    return page


async def test_people_see_only_their_tenants_runs(
    browser: Browser, identity: IdentityCase, log: LogLines
) -> None:
    alices = await start_run(identity, "alice", {"steps": 1})
    bobs = await start_run(identity, "bob", {"steps": 1})
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    await page.goto(f"{identity.origin}/console/")
    await shot(page, "sso-sign-in")
    await context.close()
    alice = await signed_in(browser, identity, "alice", "sso")
    await expect(alice.get_by_text("Signed in as alice")).to_be_visible(timeout=30_000)
    await expect(alice.locator(f"a[href$='/runs/{alices}']")).to_be_visible()
    await expect(alice.locator(f"a[href$='/runs/{bobs}']")).to_have_count(0)
    await shot(alice, "sso-runs")
    bob = await signed_in(browser, identity, "bob")
    await expect(bob.get_by_text("Signed in as bob")).to_be_visible(timeout=30_000)
    await expect(bob.locator(f"a[href$='/runs/{bobs}']")).to_be_visible()
    await expect(bob.locator(f"a[href$='/runs/{alices}']")).to_have_count(0)
    await bob.goto(f"{identity.origin}/console/runs/{alices}")
    await expect(bob.get_by_role("heading", name="Not found")).to_be_visible()
    assert any("console sign-in: alice (tenant alpha) through the IdP" in x for x in log.lines)
    assert any(re.search(r"http GET /console/ 200 .*principal=bob", x) for x in log.lines)


@pytest.mark.parametrize(
    ("login", "why"),
    [
        ("mallory", "no access to this console"),  # no group maps to a scope
        ("eve", "not in a domain allowed"),  # elsewhere.example
    ],
)
async def test_people_without_access_are_refused(
    browser: Browser, identity: IdentityCase, login: str, why: str
) -> None:
    page = await signed_in(browser, identity, login)
    await expect(page.get_by_role("alert")).to_contain_text(why, timeout=30_000)
    await shot(page, f"sso-refused-{login}")
    await page.goto(f"{identity.origin}/console/")
    await expect(page).to_have_url(re.compile(r"/console/sign-in"))


async def test_answers_made_in_the_console_name_the_person(
    browser: Browser, identity: IdentityCase
) -> None:
    run_id = await start_run(identity, "alice", {"steps": 1, "ask_approval": True})
    page = await signed_in(browser, identity, "alice")
    await expect(page.get_by_text("Signed in as alice")).to_be_visible(timeout=30_000)
    await page.goto(f"{identity.origin}/console/runs/{run_id}")
    await page.get_by_role("button", name="Approve once").click(timeout=30_000)
    async with grpc.aio.insecure_channel(identity.grpc_target) as channel:
        interactions = interaction_service_pb2_grpc.InteractionServiceStub(channel)
        request = isv.ListInteractionsRequest(
            run=f"runs/{run_id}", states=[ip.INTERACTION_STATE_RESOLVED]
        )
        metadata = await person_token(identity, "alice")

        async def resolved() -> bool:
            listed = await interactions.ListInteractions(request, metadata=metadata)
            return bool(listed.interactions) and listed.interactions[0].resolved_by == "alice"

        await eventually(resolved, within=30)


async def test_a_takeover_declined_in_the_console_names_the_person(
    browser: Browser, identity: IdentityCase
) -> None:
    run_id = await start_run(identity, "alice", {"steps": 1, "ask_person": True})
    page = await signed_in(browser, identity, "alice")
    await expect(page.get_by_text("Signed in as alice")).to_be_visible(timeout=30_000)
    await page.goto(f"{identity.origin}/console/runs/{run_id}")
    await page.get_by_role("button", name="Decline").click(timeout=30_000)
    await expect(page.locator("#timeline")).to_contain_text(
        "takeover TAKEOVER_ENDING_DECLINED", timeout=30_000
    )
    async with grpc.aio.insecure_channel(identity.grpc_target) as channel:
        interactions = interaction_service_pb2_grpc.InteractionServiceStub(channel)
        request = isv.ListInteractionsRequest(
            run=f"runs/{run_id}", states=[ip.INTERACTION_STATE_RESOLVED]
        )
        listed = await interactions.ListInteractions(
            request, metadata=await person_token(identity, "alice")
        )
    (declined,) = listed.interactions
    assert declined.HasField("takeover") and declined.declined
    assert declined.resolved_by == "alice"


async def test_signing_out_ends_the_idps_session_too(
    browser: Browser, identity: IdentityCase
) -> None:
    page = await signed_in(browser, identity, "alice")
    await expect(page.get_by_text("Signed in as alice")).to_be_visible(timeout=30_000)
    await page.get_by_role("button", name="Sign out").click()
    confirm = page.get_by_role("button", name="Yes, sign me out")
    await confirm.wait_for(timeout=30_000)
    await shot(page, "sso-idp-sign-out")
    await confirm.click()
    await expect(page).to_have_url(f"{identity.origin}/console/sign-in", timeout=30_000)
    await page.goto(f"{identity.origin}/console/")
    await expect(page).to_have_url(re.compile(r"/console/sign-in\?next="))  # signed out here
    await page.get_by_role("link", name="Sign in with the test IdP").click()
    await page.locator("input[name=login]").wait_for(timeout=30_000)  # and at the IdP
