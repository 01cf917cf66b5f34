"""Looking at the page before each decision: the snapshot the model reads (with its compression
report) and the screenshot artifact (inline only when the caller opted in)."""

from __future__ import annotations

import asyncio
import base64
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from outrider.server.browser import facts_feed
from outrider.server.browser.connection import Connection
from outrider.server.browser.conversation import Conversation
from outrider.server.browser.human_control import HumanControl
from outrider.server.browser.js import load_js
from outrider.server.browser.page_model import (
    LARGE_PAGE_NOTE,
    PASSWORD_VALUES_JS,
    SLOW_PAGE_NOTE,
    PageView,
    build_large_view,
    build_view,
    page_facts,
)
from outrider.server.browser.prompts import page_message
from outrider.server.browser.refs import RefMap
from outrider.server.browser.reporting import Reporter
from outrider.server.browser.run_vault import RunVault
from outrider.server.browser.screenshots import Screenshotter
from outrider.server.browser.secrets import Secrets
from outrider.server.core.errors import Unavailable
from outrider.server.core.runs.agent import RunContext
from outrider.server.models.base import ImagePart
from outrider.server.settings.browser import BrowserSettings
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import params_pb2

log = logging.getLogger(__name__)
_LARGE_PAGE_JS = load_js("large_page.js")
_PAGE_FACTS_JS = load_js("page_facts.js")


class ObservedRun(Protocol):
    """What the observer uses of its run (browser/run.py)."""

    @property
    def ctx(self) -> RunContext: ...
    @property
    def params(self) -> params_pb2.AutomateParams: ...
    @property
    def reporter(self) -> Reporter: ...
    @property
    def secrets(self) -> Secrets: ...
    @property
    def refs(self) -> RefMap: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def connection(self) -> Connection: ...
    @property
    def human(self) -> HumanControl: ...
    @property
    def vault(self) -> RunVault: ...


class Observer:
    def __init__(self, run: ObservedRun, settings: BrowserSettings) -> None:
        self._run = run
        self._settings = settings
        self._title = ""
        self._seen_at = ("", "")  # (URL, scroll position) of the last screenshot
        self._where = ""  # scroll position of the newest read
        self._last_shot: bytes | None = None
        self._screenshotter = Screenshotter(settings.action_timeout)
        self._small_pages: set[tuple[int, str]] = set()  # read before, not large: read at once
        self.last_view = ""

    async def observe(self, iteration_id: str, screenshot: bool = True) -> bool:
        """Adds the current page to the conversation; True when a screenshot was taken.
        `screenshot=False` skips it (a replayed recipe step: no model looks at it)."""
        async with self._run.human.working():  # not while a person has the browser
            if self._run.human.gate.page_is_stale:  # where a person left it, if elsewhere
                await self._run.connection.report_navigation(iteration_id)
            view, shot = await self._read(iteration_id, screenshot)
            told = self._run.human.read_page()
        page = self._run.connection.session.page
        images = (ImagePart(shot, "image/jpeg"),) if shot and self._settings.vision else ()
        notices = (
            told + self._run.connection.session.notices.take() + self._run.vault.notes(page.url)
        )
        message = page_message(view.text, page.url, self._title, notices, self._run.params.url)
        self._run.conversation.add_page(message, images)
        self.last_view = view.text
        return shot is not None

    async def _read(self, iteration_id: str, screenshot: bool) -> tuple[PageView, bytes | None]:
        connection = self._run.connection
        await connection.ensure_alive(iteration_id)
        try:
            view = await self._snapshot(connection.session.page)
        except PlaywrightError:
            await connection.ensure_alive(iteration_id)
            await connection.session.page.wait_for_load_state("domcontentloaded")
            view = await self._snapshot(connection.session.page)
        self._report_compression(view, iteration_id)
        page = connection.session.page
        at = (page.url, self._where)
        return view, await self._shot_for(view, at, iteration_id) if screenshot else None

    async def reread(self) -> str | None:
        """The current page's view, to check between the actions of one turn that the page is
        still the one the model chose them on; not sent to the model. None when the page could
        not be read (it is navigating)."""
        try:
            view = await self._snapshot(self._run.connection.session.page)
        except PlaywrightError:
            return None
        return view.text

    async def _shot_for(
        self, view: PageView, at: tuple[str, str], iteration_id: str
    ) -> bytes | None:
        """A new screenshot, or the last one again when the page has not changed since (same
        URL, scroll position and view): its event and artifact would repeat the previous ones."""
        if not self._settings.screenshots:
            return None
        if self._last_shot is None or (view.text, at) != (self.last_view, self._seen_at):
            self._last_shot = await self._screenshot(iteration_id)
        self._seen_at = at
        return self._last_shot

    async def _snapshot(self, page: Page) -> PageView:
        key = self._run.connection.session.key_of(page)
        known_small = (key, page.url) in self._small_pages
        read = await read_page(
            page, key, self._run.refs, self._run.secrets, self._settings, known_small
        )
        self._title, self._where = read.title, read.where
        if not read.view.text.startswith(LARGE_PAGE_NOTE):
            self._small_pages.add((key, page.url))
        return read.view

    def _report_compression(self, view: PageView, iteration_id: str) -> None:
        percent = 100.0 * (1 - view.compressed_size / view.raw_size) if view.raw_size else 0.0
        self._run.reporter.emit(
            "system_debug_compression",
            ae.SystemDebugCompression(
                compressed_size=view.compressed_size,
                original_size=view.raw_size,
                compression_percent=round(percent, 1),
                iteration_id=iteration_id,
            ),
        )

    async def _screenshot(self, iteration_id: str) -> bytes | None:
        try:
            shot = await self._screenshotter.jpeg(self._run.connection.session.page)
        except PlaywrightError:
            return None
        try:
            name = self._run.ctx.save_artifact(shot, "image/jpeg")
        except Unavailable as error:  # the store is behind: this step goes without one
            log.warning("screenshot not kept: %s", error)
            return None
        self._run.reporter.emit(
            "browser_screenshot_captured",
            ae.BrowserScreenshotCaptured(
                format=ae.SCREENSHOT_FORMAT_JPEG, iteration_id=iteration_id, size=len(shot)
            ),
            name,
        )
        if self._run.ctx.options.include_screenshot_images:
            self._run.reporter.emit(
                "browser_screenshot_captured_image",
                ae.BrowserScreenshotCapturedImage(
                    image=base64.b64encode(shot).decode(),
                    iteration_id=iteration_id,
                    media_type=ae.IMAGE_MEDIA_TYPE_JPEG,
                ),
                name,
            )
        return shot


@dataclass(frozen=True)
class PageRead:
    view: PageView
    title: str
    where: str  # the scroll position ("x,y"): a scrolled page looks different, same view or not


async def read_page(
    page: Page,
    key: int,
    refs: RefMap,
    secrets: Secrets,
    settings: BrowserSettings,
    known_small: bool = False,
) -> PageRead:
    """The model's view of a page, in as few calls to the browser as the page allows: the page
    facts (size, modal dialog or covering overlay, comboboxes, unseen text, the main frame's
    password values, title, scroll position), the snapshot, and each child frame's password
    scan. The facts ride on the snapshot's call (facts_feed.py); without the facts engine, they
    are read by a call of their own: at once with the snapshot when the page is `known_small`
    (read before and not large), else first, as a large page gets the viewport-first view
    instead of a costly snapshot. The facts engine takes no snapshot of a large page either."""
    cap, limit = settings.max_snapshot_chars, settings.large_page_elements
    facts, snapshot = await _facts_and_snapshot(page, settings, known_small)
    for value in facts["passwords"]:
        secrets.add(value)
    large = facts["count"] > limit
    if large or snapshot is None:
        # Overload slows a run down, never fails it: a snapshot the busy browser could not
        # produce in time is replaced by the fast viewport-first view for this step.
        why = LARGE_PAGE_NOTE if large else SLOW_PAGE_NOTE
        found = await page.evaluate(_LARGE_PAGE_JS, [0.5, 1.5, 400])
        view = build_large_view(found, key, refs, secrets, cap, why)
        return PageRead(view, facts["title"], facts["where"])
    raw, frame_values = snapshot
    for value in frame_values:
        secrets.add(value)
    view = build_view(raw, key, refs, secrets, cap, page_facts(facts))
    return PageRead(view, facts["title"], facts["where"])


Snapshot = tuple[str, list[str]]  # the AI snapshot, the password values of child frames


async def _facts_and_snapshot(
    page: Page, settings: BrowserSettings, known_small: bool
) -> tuple[dict[str, Any], Snapshot | None]:
    """What page_facts.js finds, and the snapshot unless the page is large or the snapshot was
    not produced in time."""
    fed = await _fed(page, settings) if facts_feed.available(page) else None
    return fed or await _by_calls(page, settings, known_small)


async def _fed(
    page: Page, settings: BrowserSettings
) -> tuple[dict[str, Any], Snapshot | None] | None:
    """The facts with the snapshot in one call, the password values of child frames read
    alongside; None when the page has no facts engine after all."""
    limit = settings.large_page_elements
    read = facts_feed.read(page, limit, settings.action_timeout)
    children = page.frames[1:]
    if children:
        fed, frames = await asyncio.gather(read, _passwords_in(children))
    else:  # most pages: no task for nothing to gather
        fed, frames = await read, []
    if fed is None:
        return None
    facts = fed.facts or await page.evaluate(_PAGE_FACTS_JS, [limit])  # the post did not come
    return facts, None if fed.snapshot is None else (fed.snapshot, frames)


async def _by_calls(
    page: Page, settings: BrowserSettings, known_small: bool
) -> tuple[dict[str, Any], Snapshot | None]:
    """The facts by a call of their own: at once with the snapshot on a page `known_small`,
    else first (a large page gets no snapshot)."""
    limit = settings.large_page_elements
    if known_small:
        facts, snapshot = await asyncio.gather(
            page.evaluate(_PAGE_FACTS_JS, [limit]), _snapshot_in_time(page, settings)
        )
        return facts, snapshot
    facts = await page.evaluate(_PAGE_FACTS_JS, [limit])
    if facts["count"] > limit:
        return facts, None
    return facts, await _snapshot_in_time(page, settings)


async def _passwords_in(frames: list[Frame]) -> list[str]:
    found = await asyncio.gather(*(_password_values(frame) for frame in frames))
    return [value for values in found for value in values]


async def _snapshot_in_time(page: Page, settings: BrowserSettings) -> Snapshot | None:
    """The snapshot, or None when the browser did not produce it within the action timeout."""
    try:
        return await _snapshot(page, settings)
    except PlaywrightTimeoutError:
        return None


async def _snapshot(page: Page, settings: BrowserSettings) -> Snapshot:
    """The AI snapshot, and the password values of child frames read alongside it."""
    snapshot = page.aria_snapshot(mode="ai", timeout=settings.action_timeout * 1000)
    raw, *frames = await asyncio.gather(
        snapshot, *(_password_values(frame) for frame in page.frames[1:])
    )
    return str(raw), [value for values in frames for value in values]


async def _password_values(frame: Frame) -> list[str]:
    try:
        values: list[str] = await frame.evaluate(PASSWORD_VALUES_JS)
    except PlaywrightError:
        return []  # a frame that went away or refuses scripts
    return values
