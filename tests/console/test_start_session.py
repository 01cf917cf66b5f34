"""Starting a session from the console, in Chromium: a browser session made from the form (the
same core create as the API's: the session the API then reads is the one the form asked for),
its page, a run started in it from there that goes on in the session's browser; a refused
create shown at its fields with the values kept; one session for a form sent twice; a reader,
who lacks runs.start, offered no form. axe-core finds nothing serious on any page."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import grpc
import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from outrider.v1 import run_pb2, session_pb2, session_service_pb2
from outrider.v1 import run_service_pb2 as rs
from tests.console.support import (
    SCENARIOS,
    Console,
    accessibility_problems,
    console_server,
    part_shot,
    shot,
)
from tests.sessions.support import sessions_stub
from tests.support.harness import eventually

pytestmark = pytest.mark.asyncio(loop_scope="module")

SCENARIO = SCENARIOS / "browser" / "console_operating.yaml"
TASK = "Subscribe to the newsletter with ada@example.com"
SESSION_PATH = re.compile(r"/sessions/([0-9a-f]{24})$")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def console(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Console]:
    async with console_server(
        tmp_path_factory.mktemp("start_session"), model=f"scripted:{SCENARIO}"
    ) as server:
        yield server


async def get_session(console: Console, name: str) -> session_pb2.Session:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{console.server.port}") as channel:
        request = session_service_pb2.GetSessionRequest(name=name)
        got: session_service_pb2.GetSessionResponse = await sessions_stub(channel).GetSession(
            request, metadata=console.keys.bearer("alice")
        )
        return got.session


async def session_form(console: Console, principal: str = "alice") -> Page:
    """The session form, reached from the start page's link."""
    page = await console.signed_in(principal)
    await page.goto(f"{console.base}/start")
    await page.get_by_role("link", name="start a session").click()
    await page.wait_for_url(f"{console.base}/start/session")
    return page


async def test_a_browser_session_made_from_the_form_runs_a_run_started_from_its_page(
    console: Console,
) -> None:
    page = await session_form(console)
    newsletter = f"{console.sites}/browser/newsletter.html"
    await page.get_by_label("Start page").fill(newsletter)
    await page.get_by_label("Idle timeout (seconds)").fill("300")
    await page.get_by_label("Maximum life (seconds)").fill("1200")
    await page.get_by_label("Labels").fill("team=growth\nticket=OPS-12")
    await part_shot(page, "main", "start-session-form")
    assert await accessibility_problems(page) == []
    await page.get_by_role("button", name="Start the session").click()
    await page.wait_for_url(re.compile(rf"{re.escape(console.base)}/sessions/[0-9a-f]{{24}}$"))
    match = SESSION_PATH.search(page.url)
    assert match is not None
    name = f"sessions/{match.group(1)}"
    made = await get_session(console, name)
    assert made.created_by == "alice" and made.start_url == newsletter
    assert made.idle_timeout.seconds == 300 and made.max_life.seconds == 1200
    assert made.labels["team"] == "growth" and made.labels["ticket"] == "OPS-12"
    facts = page.locator("#session-facts")
    await expect(page.get_by_role("heading", level=1)).to_contain_text(name)
    await expect(facts).to_contain_text("Idle: ready for a run")
    await expect(facts).to_contain_text("5 min 00 s")  # the idle timeout
    await expect(facts).to_contain_text("20 min 00 s")  # the maximum life
    await expect(facts).to_contain_text("ends in 5 min unless a run starts")
    await expect(facts).to_contain_text(re.compile(r"ends in (19|20) min"))
    await expect(facts).to_contain_text("team=growth")
    await shot(page, "session-page", full_page=False)
    assert await accessibility_problems(page) == []

    await page.get_by_role("link", name="Start a browser run in this session").click()
    await expect(page.get_by_label("Go on in a session")).to_have_value(name)
    await page.get_by_label(re.compile("^Task")).fill(TASK)
    await page.get_by_text("The action firewall and recipes").click()
    await page.get_by_label("Trusted hosts").fill("127.0.0.1")
    await page.get_by_role("button", name="Start the run").click()  # no start page: the session's
    await page.wait_for_url(re.compile(rf"{re.escape(console.base)}/runs/[0-9a-f]{{24}}$"))
    run_id = page.url.rsplit("/", 1)[-1]
    await expect(page.locator("#result")).to_contain_text("Subscribed", timeout=60_000)
    got = await console.runs.GetRun(
        rs.GetRunRequest(name=f"runs/{run_id}"), metadata=console.keys.bearer("alice")
    )
    assert got.run.options.session == name and not got.run.automate.url

    async def idle_again() -> bool:  # the run's end, then the session's (a page does not follow)
        return (await get_session(console, name)).state == session_pb2.SESSION_STATE_IDLE

    await eventually(idle_again, within=30)
    await page.goto(f"{console.base}/sessions/{match.group(1)}")
    await expect(facts).to_contain_text(re.compile(r"Runs in it\s*1"))
    await expect(facts).to_contain_text("Welcome")  # its browser stayed on the page the run left
    await page.get_by_role("button", name="End the session").click()
    await expect(facts).to_contain_text("Ended")
    await expect(facts).to_contain_text("someone ended it")
    ended = await get_session(console, name)
    assert ended.state == session_pb2.SESSION_STATE_ENDED
    await page.context.close()


async def test_a_refused_create_shows_why_at_the_field_and_keeps_the_values(
    console: Console,
) -> None:
    page = await session_form(console)
    await page.get_by_label("Start page").fill("ftp://files.example.com/")  # not http(s)
    await page.get_by_label("Idle timeout (seconds)").fill("100000")  # beyond its maximum life
    await page.get_by_label("Labels").fill("team=growth")
    async with page.expect_response(lambda r: r.request.method == "POST") as refused:
        await page.get_by_role("button", name="Start the session").click()
    assert (await refused.value).status == 400
    url = page.get_by_label("Start page")
    await expect(url).to_have_attribute("aria-invalid", "true")
    await expect(url).to_have_value("ftp://files.example.com/")
    await expect(page.locator("#error-start_url")).to_contain_text("The start page")
    idle_error = page.locator("#error-idle_timeout")
    await expect(idle_error).to_contain_text("must be between 1 s and 3600 s")
    await expect(page.get_by_label("Labels")).to_have_value("team=growth")
    await expect(page.get_by_role("alert")).to_contain_text("The session was not started")
    await shot(page, "start-session-refused", full_page=False)
    assert await accessibility_problems(page) == []

    await page.get_by_label("Labels").fill("team growth")  # not key=value: refused here
    await page.get_by_label("Start page").fill("")
    await page.get_by_label("Idle timeout (seconds)").fill("")
    await page.get_by_role("button", name="Start the session").click()
    await expect(page.locator("#error-labels")).to_contain_text("line 1 is not key=value")
    await page.context.close()


async def test_a_form_sent_twice_makes_one_session(console: Console) -> None:
    page = await session_form(console)
    await page.get_by_label("Labels").fill("sent=twice")
    statuses = await page.evaluate(
        """async () => {
            const form = document.querySelector("form.start-form");
            const send = () => fetch(form.action, {method: "POST", body: new URLSearchParams(
                new FormData(form)), redirect: "manual"}).then(r => r.status);
            return Promise.all([send(), send(), send()]);
        }"""
    )
    assert statuses == [0, 0, 0], statuses  # each an opaque redirect: each was a success
    await page.get_by_role("button", name="Start the session").click()  # and a third, later
    await page.wait_for_url(re.compile(rf"{re.escape(console.base)}/sessions/[0-9a-f]{{24}}$"))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{console.server.port}") as channel:
        listed = await sessions_stub(channel).ListSessions(
            session_service_pb2.ListSessionsRequest(), metadata=console.keys.bearer("alice")
        )
        twice = [s for s in listed.sessions if s.labels.get("sent") == "twice"]
        assert [s.name for s in twice] == [f"sessions/{page.url.rsplit('/', 1)[-1]}"]
        await sessions_stub(channel).EndSession(
            session_service_pb2.EndSessionRequest(name=twice[0].name),
            metadata=console.keys.bearer("alice"),
        )
    await page.context.close()


async def test_a_reader_is_offered_no_session_form_and_a_forged_create_is_refused(
    console: Console,
) -> None:
    page = await console.signed_in("reader")
    await page.goto(f"{console.base}/start/session")
    await expect(page.get_by_role("main")).to_contain_text("may not start sessions")
    await expect(page.get_by_role("button", name="Start the session")).to_have_count(0)
    csrf = await page.locator('input[name="csrf"]').first.input_value()  # the sign-out form's
    status = await page.evaluate(
        """async (csrf) => (await fetch(location.href, {method: "POST",
            body: new URLSearchParams({csrf, kind: "browser"})})).status""",
        csrf,
    )
    assert status == 403
    await page.context.close()


async def test_a_research_session_offers_a_research_run_in_it(console: Console) -> None:
    page = await session_form(console)
    await page.get_by_label(re.compile("^Research session")).check()
    await expect(page.get_by_label("Start page")).to_be_hidden()  # only a browser opens a page
    await page.get_by_role("button", name="Start the session").click()
    await page.wait_for_url(re.compile(rf"{re.escape(console.base)}/sessions/[0-9a-f]{{24}}$"))
    name = f"sessions/{page.url.rsplit('/', 1)[-1]}"
    assert (await get_session(console, name)).kind == run_pb2.RUN_KIND_RESEARCH
    await expect(page.get_by_role("heading", level=1)).to_contain_text("Research session")
    await page.get_by_role("link", name="Start a research run in this session").click()
    await expect(page.get_by_label(re.compile("^Research run"))).to_be_checked()
    await expect(page.get_by_label("Go on in a session")).to_have_value(name)
    offered = page.locator(f'#live-sessions option[value="{name}"]')  # the live ones offered
    await expect(offered).to_have_count(1)
    await page.goto(f"{console.base}/{name}")
    await page.get_by_role("button", name="End the session").click()
    await expect(page.locator("#session-facts")).to_contain_text("Ended")
    await page.goto(f"{console.base}/start")
    await expect(offered).to_have_count(0)  # an ended one is not
    await page.context.close()
