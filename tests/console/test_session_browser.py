"""A browser session in the console, in Chromium, as an operator uses it: the sessions page lists
the tenant's live sessions with where each one's browser is; from a session's page a person uses
its browser between runs (a by-hand run in the session: take over in the live view, act, hand
back with a note); the session's page then shows that run and the page the person left, and the
run reads as the person's note. A reader is offered no way in; another tenant sees nothing.
axe-core finds nothing serious on the pages."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import grpc
import pytest
import pytest_asyncio
from playwright.async_api import expect

from outrider.v1 import session_pb2, session_service_pb2
from tests.console.support import (
    SCENARIOS,
    Console,
    accessibility_problems,
    console_server,
    shot,
    where,
)
from tests.console.test_answering import tab_to
from tests.sessions.support import create_request, sessions_stub
from tests.support.harness import eventually

pytestmark = pytest.mark.asyncio(loop_scope="module")

SCENARIO = SCENARIOS / "browser" / "console_operating.yaml"
NOTE = "I subscribed us to the newsletter"  # what a person typed is redacted in notes


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def console(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Console]:
    async with console_server(
        tmp_path_factory.mktemp("session_browser"), model=f"scripted:{SCENARIO}"
    ) as server:
        yield server


async def session_call(
    console: Console, method: str, request: object, who: str = "alice"
) -> object:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{console.server.port}") as channel:
        call = getattr(sessions_stub(channel), method)
        return await call(request, metadata=console.keys.bearer(who))


async def new_session(console: Console, labels: dict[str, str]) -> session_pb2.Session:
    request = create_request(
        start_url=f"{console.sites}/browser/newsletter.html", idle=600, life=1200, labels=labels
    )
    created = await session_call(console, "CreateSession", request)
    return created.session  # type: ignore[attr-defined, no-any-return]


async def session_state(console: Console, name: str) -> session_pb2.Session:
    got = await session_call(
        console, "GetSession", session_service_pb2.GetSessionRequest(name=name)
    )
    return got.session  # type: ignore[attr-defined, no-any-return]


async def test_a_person_uses_a_session_browser_between_runs_from_its_page(
    console: Console,
) -> None:
    made = await new_session(console, {"desk": "growth"})
    session_id = made.name.removeprefix("sessions/")
    page = await console.signed_in("alice")
    await (
        page.get_by_role("navigation", name="Console").get_by_role("link", name="Sessions").click()
    )
    row = page.locator(f"#session-{session_id}")
    await expect(row).to_contain_text("Idle: ready for a run")
    await expect(row).to_contain_text("Newsletter")  # where its browser is
    await expect(row).to_contain_text("desk=growth")
    await shot(page, "sessions-list", full_page=False)
    assert await accessibility_problems(page) == []

    await row.get_by_role("link", name=re.compile("Browser session")).click()
    await page.wait_for_url(f"{console.base}/sessions/{session_id}")
    await expect(page.locator("#session-runs")).to_have_count(0)  # no run in it yet
    await page.get_by_role("button", name="Use its browser yourself").click()
    await page.wait_for_url(re.compile(rf"{re.escape(console.base)}/runs/[0-9a-f]{{24}}$"))
    run_id = page.url.rsplit("/", 1)[-1]
    controls = page.locator("#live-controls")
    await expect(controls).to_contain_text("The agent asks for a person", timeout=60_000)
    await expect(page.locator("#run-session")).to_have_text(made.name)
    busy = await session_state(console, made.name)
    assert busy.state == session_pb2.SESSION_STATE_CONTROLLED
    assert busy.active_run == f"runs/{run_id}"
    await eventually(lambda: page.locator("#screen").evaluate("i => i.naturalWidth > 0"), 30)
    await controls.get_by_role("button", name="Take over").click()
    await expect(controls).to_contain_text("You have control of the browser")
    await tab_to(page, page.locator("#screen"))
    await controls.get_by_role("button", name="Send Tab").click()  # to the email field
    await controls.get_by_label("Text").fill("grace@example.com")
    await controls.get_by_role("button", name="Send text").click()
    await controls.get_by_role("button", name="Send Enter").click()  # subscribes
    await eventually(lambda: "welcome" in where(console, run_id), within=30)
    watcher = await page.context.new_page()  # the session's page shows its browser meanwhile
    await watcher.goto(f"{console.base}/sessions/{session_id}")
    await expect(watcher.locator("#session-facts")).to_contain_text("A person controls its browser")
    live = watcher.locator(f"#screen-{run_id}")
    await eventually(lambda: live.evaluate("i => i.naturalWidth > 0"), 30)
    await shot(watcher, "session-live-browser", full_page=False)
    await watcher.close()
    await page.locator("#screen").scroll_into_view_if_needed()
    await shot(page, "session-browser-in-use", full_page=False)
    await controls.get_by_label("Note for the agent").fill(NOTE)
    await controls.get_by_role("button", name="Hand back").click()
    await expect(page.locator("#result")).to_contain_text(NOTE, timeout=60_000)

    lent = await console.ended("alice", run_id)
    assert lent.outcome.success and lent.outcome.result.endswith(NOTE), lent.outcome
    assert lent.options.by_hand and lent.options.session == made.name

    async def idle_again() -> bool:
        return (await session_state(console, made.name)).state == session_pb2.SESSION_STATE_IDLE

    await eventually(idle_again, within=30)
    await page.locator("#run-session").click()
    facts = page.locator("#session-facts")
    await expect(facts).to_contain_text("Idle: ready for a run")  # its page refreshes itself
    await expect(facts).to_contain_text("Welcome")  # the page the person left
    runs = page.locator("#session-runs")
    await expect(runs.locator(f"#run-{run_id}")).to_contain_text("Use the session's browser")
    await expect(runs).to_contain_text("Succeeded")
    await shot(page, "session-after-a-person", full_page=False)
    assert await accessibility_problems(page) == []
    await page.context.close()


async def test_a_reader_cannot_use_the_browser_and_another_tenant_sees_no_session(
    console: Console,
) -> None:
    made = await new_session(console, {"desk": "quiet"})
    session_id = made.name.removeprefix("sessions/")
    reader = await console.signed_in("reader")
    await reader.goto(f"{console.base}/sessions/{session_id}")
    await expect(reader.locator("#session-facts")).to_contain_text("Idle: ready for a run")
    await expect(reader.get_by_role("button", name="Use its browser yourself")).to_have_count(0)
    csrf = await reader.locator('input[name="csrf"]').first.input_value()  # the sign-out form's
    status = await reader.evaluate(
        """async ([csrf, to]) => (await fetch(to, {method: "POST",
            body: new URLSearchParams({csrf})})).status""",
        [csrf, f"{console.base}/sessions/{session_id}/use-browser"],
    )
    assert status == 403
    assert (await session_state(console, made.name)).run_count == 0

    bob = await console.signed_in("bob")
    await bob.goto(f"{console.base}/sessions?show=all")
    await expect(bob.locator("main")).to_contain_text("No sessions yet.")
    missing = await bob.goto(f"{console.base}/sessions/{session_id}")
    assert missing is not None and missing.status == 404
    await session_call(console, "EndSession", session_service_pb2.EndSessionRequest(name=made.name))
    await reader.goto(f"{console.base}/sessions?show=ended")
    await expect(reader.locator(f"#session-{session_id}")).to_contain_text("someone ended it")
    await reader.context.close()
    await bob.context.close()
