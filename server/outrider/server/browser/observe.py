"""Looking at the page before each decision: the snapshot the model reads (with its compression
report) and the screenshot artifact (inline only when the caller opted in)."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from outrider.server.browser.js import load_js
from outrider.server.browser.page_model import (
    PASSWORD_VALUES_JS,
    PageFacts,
    PageView,
    bare_comboboxes,
    build_large_view,
    build_view,
)
from outrider.server.browser.prompts import page_message
from outrider.server.browser.settings import BrowserSettings
from outrider.server.models.base import ImagePart
from outrider.v1 import automate_events_pb2 as ae

_LARGE_PAGE_JS = load_js("large_page.js")
_PAGE_FACTS_JS = load_js("page_facts.js")
_COMBOBOX_FACTS_JS = load_js("combobox_facts.js")

if TYPE_CHECKING:
    from outrider.server.browser.run import BrowserRun


class Observer:
    def __init__(self, run: BrowserRun, settings: BrowserSettings) -> None:
        self._run = run
        self._settings = settings
        self.last_view = ""

    async def observe(self, iteration_id: str) -> bool:
        """Adds the current page to the conversation; True when a screenshot was taken."""
        connection = self._run.connection
        await connection.ensure_alive(iteration_id)
        try:
            view = await self._snapshot(connection.session.page)
        except PlaywrightError:
            await connection.ensure_alive(iteration_id)
            await connection.session.page.wait_for_load_state("domcontentloaded")
            view = await self._snapshot(connection.session.page)
        self._report_compression(view, iteration_id)
        shot = await self._screenshot(iteration_id) if self._settings.screenshots else None
        page = connection.session.page
        images = (ImagePart(shot, "image/jpeg"),) if shot and self._settings.vision else ()
        message = page_message(
            view.text, page.url, await page.title(), connection.session.notices.take()
        )
        self._run.conversation.add_page(message, images)
        self.last_view = view.text
        return shot is not None

    async def _snapshot(self, page: Page) -> PageView:
        key = self._run.connection.session.key_of(page)
        cap = self._settings.max_snapshot_chars
        limit = self._settings.large_page_elements
        facts = await page.evaluate(_PAGE_FACTS_JS, [limit])
        if facts["count"] > limit:
            found = await page.evaluate(_LARGE_PAGE_JS, [0.5, 1.5, 400])
            return build_large_view(found, key, self._run.refs, self._run.secrets, cap)
        raw = await page.aria_snapshot(mode="ai", timeout=self._settings.action_timeout * 1000)
        for frame in page.frames:
            try:
                for value in await frame.evaluate(PASSWORD_VALUES_JS):
                    self._run.secrets.add(value)
            except PlaywrightError:
                continue  # a frame that went away or refuses scripts
        notes = await self._combobox_notes(page, raw)
        page_facts = PageFacts(facts["modal"], notes, frozenset(facts["hidden"]))
        return build_view(raw, key, self._run.refs, self._run.secrets, cap, page_facts)

    async def _combobox_notes(self, page: Page, raw: str) -> dict[str, str]:
        """Editable or not, and the list it controls, of each combobox that is not a select:
        one call each, and none on pages without such comboboxes."""
        notes: dict[str, str] = {}
        for ref in bare_comboboxes(raw):
            try:
                notes[ref] = await page.locator(f"aria-ref={ref}").evaluate(
                    _COMBOBOX_FACTS_JS, timeout=1000
                )
            except PlaywrightError:
                continue  # gone since the snapshot: it shows without a note
        return notes

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
            shot = await self._run.connection.session.page.screenshot(type="jpeg", quality=70)
        except PlaywrightError:
            return None
        name = self._run.ctx.save_artifact(shot, "image/jpeg")
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
