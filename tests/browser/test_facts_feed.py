"""The page facts ride on the snapshot's call (facts_feed.py, issue 40): what one call gives is
what the two calls gave, facts are posted again only when they changed or the document is new,
the page itself can neither silence nor forge them, and a browser whose Playwright has no facts
engine is read as before, to the same view."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest
import pytest_asyncio
from playwright.async_api import Browser, ConsoleMessage, Page, ViewportSize, async_playwright

from outrider.server.browser import facts_feed
from outrider.server.browser.js import load_js
from outrider.server.browser.observe import read_page
from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets
from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.settings.browser import BrowserSettings
from tests.console.support import CHROMIUM, chromium

pytestmark = pytest.mark.asyncio(loop_scope="module")
LIMIT = BrowserSettings().large_page_elements
VIEWPORT = ViewportSize(width=1280, height=800)
PAGE_FACTS_JS = load_js("page_facts.js")
PAGES = (
    "/browser/signup.html",
    "/browser/widgets.html",  # a child frame
    "/view/short_banner.html",  # an overlay
    "/view/consent.html",  # a modal dialog
    "/view/contact.html",  # text broken over lines
)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    """Chromium from a Playwright with the facts engine, as the server's launcher starts it."""
    async with async_playwright() as playwright:
        await facts_feed.register(playwright)
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS), headless=True
        )
        yield browser
        await browser.close()


@pytest_asyncio.fixture(loop_scope="module")
async def page(browser: Browser) -> AsyncIterator[Page]:
    page = await browser.new_page(viewport=VIEWPORT)
    yield page
    await page.close()


def posts_on(page: Page) -> list[str]:
    """The facts engine's posts on the page's console, as they come."""
    posts: list[str] = []

    def heard(message: ConsoleMessage) -> None:
        if message.text.startswith("outrider-facts "):
            posts.append(message.text)

    page.on("console", heard)
    return posts


async def fed(page: Page, limit: int = LIMIT) -> facts_feed.Fed:
    read = await facts_feed.read(page, limit, 30)
    assert read is not None, "the engine is registered"
    return read


async def test_one_call_gives_what_the_two_calls_gave(page: Page, sites: str) -> None:
    for path in PAGES:
        await page.goto(sites + path)
        one = await fed(page)
        assert one.facts == await page.evaluate(PAGE_FACTS_JS, [LIMIT]), path
        assert one.snapshot == await page.aria_snapshot(mode="ai"), path


async def test_facts_are_posted_again_only_when_they_changed_or_the_document_is_new(
    page: Page, sites: str
) -> None:
    await page.goto(sites + "/browser/signup.html")
    posts = posts_on(page)
    first = await fed(page)
    again = await fed(page)
    assert again.facts == first.facts and len(posts) == 1  # unchanged: not sent again
    await page.evaluate("document.title = 'Renamed'")
    renamed = await fed(page)
    assert renamed.facts is not None and renamed.facts["title"] == "Renamed"
    assert len(posts) == 2
    await page.reload()  # the same facts, from a new document: posted
    reloaded = await fed(page)
    assert reloaded.facts == first.facts and len(posts) == 3
    facts_feed.forget(page)  # a reader without them: posted
    assert (await fed(page)).facts == first.facts and len(posts) == 4


async def test_a_typed_password_is_never_posted_and_still_read(page: Page, sites: str) -> None:
    await page.goto(sites + "/browser/login.html")
    posts = posts_on(page)
    await page.locator("input[type=password]").fill("hunter2-typed")
    for _ in range(2):  # posted, then unchanged: the values are read by a call each time
        read = await fed(page)
        assert read.facts is not None and "hunter2-typed" in read.facts["passwords"]
        assert read.facts == await page.evaluate(PAGE_FACTS_JS, [LIMIT])
    assert posts and not any("hunter2-typed" in post for post in posts)


async def test_the_page_can_neither_silence_nor_forge_the_facts(page: Page) -> None:
    forged = '{"count": 1, "passwords": ["hunter2"], "title": "Forged", "where": "0,0"}'
    await page.set_content("<title>Real</title><h1>Hello</h1>")
    await page.evaluate(
        f"""() => {{
        const forge = () => console.log = console.debug = () => {{}};
        new MutationObserver(forge).observe(document, {{ subtree: true, childList: true }});
        setInterval(() => console.info('outrider-facts ' + Math.random() + ' ' + {forged!r}), 1);
        forge();
        }}"""
    )
    for _ in range(3):
        read = await fed(page)
        assert read.facts is not None and read.facts["title"] == "Real"
        assert read.facts["passwords"] == [] and read.snapshot is not None


async def test_a_large_page_gets_its_facts_and_no_snapshot(page: Page, sites: str) -> None:
    await page.goto(sites + "/browser/signup.html")
    read = await fed(page, limit=10)  # signup has more elements than that
    assert read.snapshot is None and read.facts is not None and read.facts["count"] > 10


async def test_a_playwright_without_the_engine_reads_the_facts_by_a_call(
    page: Page, sites: str
) -> None:
    settings = BrowserSettings()
    async with AsyncExitStack() as stack:
        plain_browser = await chromium(stack)  # of a Playwright with nothing registered
        plain = await plain_browser.new_page(viewport=VIEWPORT)
        for path in PAGES:
            await page.goto(sites + path)
            await plain.goto(sites + path)
            fed = await read_page(page, 1, RefMap(), Secrets(), settings)
            by_calls = await read_page(plain, 1, RefMap(), Secrets(), settings)
            assert not facts_feed.available(plain)  # found out once, not tried again
            assert facts_feed.available(page)
            assert by_calls.view.text == fed.view.text, path
            assert (by_calls.title, by_calls.where) == (fed.title, fed.where)
