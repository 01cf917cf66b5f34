"""Viewport screenshots by one DevTools call: the bytes are a JPEG of the viewport, and a
renderer that does not answer (a page stuck in a script) times out instead of hanging the step."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Page, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from outrider.server.browser.screenshots import Screenshotter
from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.settings import Settings


@pytest.fixture
async def page(tmp_path: Path) -> AsyncIterator[Page]:
    chromium = str(Settings(data_dir=tmp_path).chromium_path)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=chromium, args=list(CHROMIUM_FLAGS), headless=True
        )
        yield await browser.new_page(viewport={"width": 640, "height": 400})
        await browser.close()


async def test_a_screenshot_is_a_jpeg_of_the_viewport(page: Page) -> None:
    await page.set_content("<h1>Hello</h1>")
    shot = await Screenshotter(5).jpeg(page)
    assert shot[:2] == b"\xff\xd8" and shot[-2:] == b"\xff\xd9"


async def test_a_page_stuck_in_a_script_times_out_instead_of_hanging(page: Page) -> None:
    await page.set_content("<h1>Busy</h1>")
    await page.evaluate("setTimeout(() => { for (;;) {} }, 0)")  # the renderer never frees up
    with pytest.raises(PlaywrightTimeoutError):
        await asyncio.wait_for(Screenshotter(1).jpeg(page), 30)  # 30 s: the old code's hang
