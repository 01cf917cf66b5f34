"""The page facts delivered with the snapshot, in one call to the page (issue 40).

A page's view needs Playwright's AI snapshot and the page facts (js/page_facts.js). As two
calls, the second one costs as much as the snapshot itself on a small page (a call to the page
is 1.3 to 5 ms here, the snapshot of a small page 3 to 6 ms). So the facts ride on the snapshot's
call: Playwright runs a locator's selector engines in the same evaluation as its snapshot, and a
custom engine (js/facts_engine.js), registered once per Playwright by `register`, reads the
facts there, posts them on the page's console (an event, which reaches us before the answer to
the call) and hands the snapshot the page's body. The engine runs in Playwright's isolated
world, where the page's own scripts cannot see or imitate its messages: each read carries a
token of its own, and only that token's message is taken. A post costs about as much as a call,
so the engine posts nothing when the facts are those it posted last and we say we have them
(by that post's token): the facts are still read at every call, only not sent again. The values
of password fields are never posted (a console's buffers outlive the read): a page with a typed
password posts its facts without them, and they are read by a call of their own.

`read` is None for a page whose Playwright has no such engine (observe.read_page then reads the
facts by a call of their own), and its facts are None when their message did not arrive.
"""

from __future__ import annotations

import json
import secrets
import weakref
from dataclasses import dataclass
from typing import Any

from playwright.async_api import BrowserContext, ConsoleMessage, Page, Playwright
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from outrider.server.browser.js import load_js
from outrider.server.browser.page_model import PASSWORD_VALUES_JS

ENGINE = "outrider-facts"
_TAG = "outrider-facts "  # js/facts_engine.js: the tag, the read's token, the facts
_LARGE = "outrider-facts: a large page"  # the engine's error on a page over the limit
_UNKNOWN = f'Unknown engine "{ENGINE}"'


async def register(playwright: Playwright) -> None:
    """The engine in every browser context `playwright` opens from now on."""
    source = f"({load_js('facts_engine.js')})({load_js('page_facts.js')})"
    await playwright.selectors.register(ENGINE, source, content_script=True)


@dataclass(frozen=True)
class Fed:
    facts: dict[str, Any] | None  # what page_facts.js found; None: its message did not arrive
    snapshot: str | None  # None: the page is over the limit, or no snapshot within the timeout


def available(page: Page) -> bool:
    """False once a read found no engine in the page's browser context."""
    return page.context not in _without_engine


async def read(page: Page, limit: int, seconds: float) -> Fed | None:
    """The page facts and, when the page has at most `limit` elements, the AI snapshot (within
    `seconds`), in one call; None when the page's context has no engine."""
    feed = _feeds.get(page)
    if feed is None:
        feed = _feeds[page] = _Feed(page)
    try:
        return await feed.read(page, limit, seconds)
    except PlaywrightError as error:
        if _UNKNOWN not in error.message:
            raise
        _without_engine.add(page.context)
        return None


def forget(page: Page) -> None:
    """The next read of `page` gets its facts posted, as on a new document (for benchmarks)."""
    feed = _feeds.get(page)
    if feed is not None:
        feed.forget()


class _Feed:
    """A page's console, listened to for the facts of the reads under way, and the facts heard
    last (the engine posts none when they have not changed)."""

    def __init__(self, page: Page) -> None:
        self._heard: dict[str, dict[str, Any] | None] = {}  # token of a read under way -> facts
        self._known: tuple[str, dict[str, Any]] | None = None  # the last facts heard, by token
        page.on("console", self._hear)

    def forget(self) -> None:
        self._known = None

    def _hear(self, message: ConsoleMessage) -> None:
        text = message.text
        if not text.startswith(_TAG):
            return
        token, _, facts = text[len(_TAG) :].partition(" ")
        if token in self._heard:
            self._heard[token] = json.loads(facts)

    async def read(self, page: Page, limit: int, seconds: float) -> Fed:
        token, known = secrets.token_hex(8), self._known
        self._heard[token] = None
        locator = page.locator(f"{ENGINE}={limit},{token},{known[0] if known else '-'}")
        snapshot: str | None = None
        try:
            snapshot = await locator.aria_snapshot(mode="ai", timeout=seconds * 1000)
        except PlaywrightTimeoutError:
            # The engine may not have run, or may post after this: nothing to infer from silence.
            return Fed(self._heard.pop(token), None)
        except PlaywrightError as error:
            if _LARGE not in error.message:
                self._heard.pop(token)
                raise
        facts = self._heard.pop(token)
        if facts is not None:
            self._known = (token, facts)
        elif known is not None:  # the engine ran to the end and posted nothing: unchanged
            facts = known[1]
        if facts is not None and facts["passwords"] is None:  # withheld from the console
            facts = {**facts, "passwords": await page.evaluate(PASSWORD_VALUES_JS)}
        return Fed(facts, snapshot)


_feeds: weakref.WeakKeyDictionary[Page, _Feed] = weakref.WeakKeyDictionary()
_without_engine: weakref.WeakSet[BrowserContext] = weakref.WeakSet()
