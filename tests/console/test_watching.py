"""Watching runs in the console: the runs page (filters, task search, paging, live updates),
a research report rendered with its citations, resuming the live timeline after a dropped
connection, and every page in a narrow window; axe-core finds nothing serious anywhere."""

from __future__ import annotations

import re

import httpx
import pytest
import pytest_asyncio
from playwright.async_api import Route, expect

from tests.console.support import Console, accessibility_problems, shot

pytestmark = pytest.mark.asyncio(loop_scope="module")

TASKS = ("Find the price of oolong tea.", "Find the price of green tea.", "Compare black teas.")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def finished(console: Console) -> list[str]:
    """Three finished browser runs of dana's, oldest first (dana's tenant has no other runs
    but the one the runs page test starts)."""
    runs = []
    for task in TASKS:
        run_id = await console.browser_run(
            "dana", "browser/console_done.yaml", "browser/welcome.html", task=task
        )
        await console.ended("dana", run_id)
        runs.append(run_id)
    return runs


async def test_the_runs_page_filters_searches_pages_and_updates_live(
    console: Console, finished: list[str]
) -> None:
    page = await console.signed_in("dana")
    table = page.locator("#runs table")
    await expect(table.locator("tbody tr")).to_have_count(3)
    await shot(page, "runs")
    assert await accessibility_problems(page) == []
    await page.get_by_label("Task contains").fill("GREEN tea")  # ignoring case
    await expect(table.locator("tbody tr")).to_have_count(1)
    await expect(table).to_contain_text("Find the price of green tea.")
    assert "q=GREEN+tea" in page.url  # the address bar keeps the filters
    await page.get_by_label("Task contains").fill("")
    await page.get_by_label("Kind").select_option("research")
    await expect(page.locator("#runs")).to_contain_text("No run matches these filters.")
    await page.get_by_label("Kind").select_option("browser")
    await page.get_by_label("State").select_option("succeeded")
    await expect(table.locator("tbody tr")).to_have_count(3)
    await page.goto(f"{console.base}/?size=2")
    await expect(table.locator("tbody tr")).to_have_count(2)
    await page.get_by_role("link", name="Older runs").click()
    await expect(table.locator("tbody tr")).to_have_count(1)
    await expect(table).to_contain_text(TASKS[0])  # newest first: the oldest is last
    await page.goto(f"{console.base}/")
    waiting = await console.browser_run(
        "dana", "browser/interactive_login.yaml", "browser/login.html",
        task="Log me in.", interactive=True, trusted_hostnames=["127.0.0.1"],
    )  # fmt: skip
    banner = page.locator(".waiting")  # the page refreshes itself; nobody reloads it
    await expect(banner).to_contain_text("1 run waiting for a person", timeout=20_000)
    await expect(table.locator(f"#run-{waiting}")).to_be_visible()
    await shot(page, "runs-waiting")
    await page.goto(f"{console.base}/?q={waiting}")  # a run id in the search box opens it
    await expect(page.locator("#run-summary")).to_contain_text(waiting)
    page.once("dialog", lambda dialog: dialog.accept())
    await page.get_by_role("button", name="Cancel run").click()
    await expect(page.locator("#run-summary")).to_contain_text("Cancelled", timeout=30_000)
    page.once("dialog", lambda dialog: dialog.accept())
    await page.get_by_role("button", name="Delete run").click()  # now that it has ended
    await page.wait_for_url(f"{console.base}/?deleted=1")
    await expect(page.get_by_role("status").first).to_contain_text("The run was deleted")
    await expect(table.locator("tbody tr")).to_have_count(3)
    assert waiting not in await page.content()
    await page.context.close()


async def test_a_research_report_is_rendered_with_linked_citations(console: Console) -> None:
    run_id = await console.research_run(
        "alice", "research_fast.yaml", "Why do honey bee colonies die?"
    )
    page = await console.signed_in("alice")
    await page.goto(f"{console.base}/runs/{run_id}")
    report = page.locator("#result article.report")
    await expect(report).to_contain_text("Varroa mites", timeout=60_000)
    citations = report.locator("a.citation")
    assert await citations.count() >= 1
    for index in range(await citations.count()):
        href = await citations.nth(index).get_attribute("href")
        assert href is not None and href.startswith(console.web + "/"), href
        assert await citations.nth(index).get_attribute("rel") == "noopener noreferrer nofollow"
    assert "S99" not in await report.inner_text()  # a citation of a page never fetched: removed
    await expect(page.locator("#run-summary")).to_contain_text("Succeeded")
    await shot(page, "run-research")
    assert await accessibility_problems(page) == []
    await page.context.close()


async def test_the_live_timeline_resumes_after_the_last_event_id(
    console: Console, finished: list[str]
) -> None:
    """What a browser does after a dropped connection: Last-Event-ID gets the rest, no repeat."""
    run_id = finished[0]
    async with httpx.AsyncClient(base_url=console.base, follow_redirects=False) as client:
        await client.post(
            "/sign-in", data={"key": console.keys.keys["dana"]}, headers={"Origin": console.origin}
        )
        whole = await read_stream(client, f"/runs/{run_id}/live", {})
        rest = await read_stream(client, f"/runs/{run_id}/live", {"Last-Event-ID": "5"})
        cursor = await read_stream(client, f"/runs/{run_id}/live?after=5", {})  # the page's
    every = [seq for ids, _ in whole for seq in ids]
    after = [seq for ids, _ in rest for seq in ids]
    assert every == list(range(1, every[-1] + 1)) and every[-1] > 8
    assert after == list(range(6, every[-1] + 1))
    assert rest[-1][1] == "end" and cursor == rest


async def test_a_hidden_runs_page_does_not_poll_the_store(
    console: Console, finished: list[str]
) -> None:
    """The runs table refreshes every 5 s while the tab is shown, and not while it is hidden
    (the page's clock is the test's: two refresh periods pass at once)."""
    page = await console.signed_in("dana")
    await page.clock.install()
    await page.reload()  # its timers start on the installed clock
    refreshes: list[str] = []
    page.on("request", lambda r: refreshes.append(r.url) if "/runs-table" in r.url else None)
    await page.evaluate(_VISIBILITY, True)
    await page.clock.run_for(11_000)  # two refresh periods
    assert refreshes == []
    await page.evaluate(_VISIBILITY, False)
    async with page.expect_request(lambda r: "/runs-table" in r.url, timeout=8_000):
        await page.clock.run_for(5_000)
    await page.context.close()


_VISIBILITY = """hidden => {
  Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
  Object.defineProperty(document, "visibilityState",
    {value: hidden ? "hidden" : "visible", configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


async def test_a_new_connection_resumes_after_the_last_event_the_page_shows(
    console: Console, finished: list[str]
) -> None:
    """The stream is cut after event 5 (what a proxy passed on before a deploy cut it) and
    then refused once (its 503): the browser gives that EventSource up and htmx opens a new
    one, which carries no Last-Event-ID, so the page's own cursor (?after=) must say where to
    resume. The timeline then holds every later event once."""
    asked: list[str] = []
    cut = 'event: timeline\nid: 5\ndata: <li id="ev-5" class="event">5 (before the cut)</li>\n\n'

    async def flaky(route: Route) -> None:
        asked.append(route.request.url)
        if len(asked) == 1:
            await route.fulfill(status=200, body=cut, content_type="text/event-stream")
        elif len(asked) == 2:  # the EventSource's own retry (with Last-Event-ID) is refused
            await route.fulfill(status=503, body="deploying")
        else:
            await route.continue_()

    page = await console.signed_in("dana")
    # the run's event stream only (not the live browser view's screen and input routes)
    await page.route(re.compile(r"/runs/[^/]+/live(\?.*)?$"), flaky)
    await page.goto(f"{console.base}/runs/{finished[2]}")
    await expect(page.locator("#live-status")).to_contain_text("The run has ended", timeout=30_000)
    rows = await page.locator("#timeline li.event").evaluate_all("rows => rows.map(r => r.id)")
    numbers = [int(row.removeprefix("ev-")) for row in rows]
    assert numbers == list(range(5, len(numbers) + 5)) and len(numbers) > 8, numbers
    assert len(asked) == 3 and asked[2].endswith("/live?after=5"), asked
    await page.context.close()


async def read_stream(
    client: httpx.AsyncClient, path: str, headers: dict[str, str]
) -> list[tuple[list[int], str]]:
    """(sequences of the timeline rows, event name) of each message, to the end."""
    messages: list[tuple[list[int], str]] = []
    async with client.stream("GET", path, headers=headers, timeout=30) as response:
        assert response.status_code == 200, response.status_code
        event, data = "", []
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: "):
                data.append(line.removeprefix("data: "))
            elif line == "" and event:
                html = "\n".join(data)
                ids = [int(part.split('"')[0]) for part in html.split('<li id="ev-')[1:]]
                messages.append((ids, event))
                event, data = "", []
    return messages


async def test_every_page_fits_a_narrow_window(console: Console, finished: list[str]) -> None:
    page = await console.signed_in("dana", viewport={"width": 390, "height": 844})
    for name, path in (("narrow-runs", "/"), ("narrow-run", f"/runs/{finished[1]}")):
        await page.goto(console.base + path)
        await page.wait_for_load_state("networkidle")  # the live part filled in: its stream ended
        await expect(page.locator("h1").first).to_be_visible()
        overflow = await page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 1, f"{name} scrolls sideways by {overflow}px"
        await shot(page, name)
        assert await accessibility_problems(page) == []
    await page.context.close()
