"""Section 3 of browser_page_cost: every in-page script of the browser agent timed on a table of
50 and of 10,000 rows with a sign-up form above it, called as the agent calls it, now and at an
earlier commit (a script that did not exist then: "-"). A script whose cost follows the
viewport or the form takes about as long on both pages."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from playwright.async_api import Browser, ElementHandle, Page

from bench.browser_pages import rows_page
from bench.browser_report import table
from bench.browser_scripts_at import medians, now, script_at
from outrider.server.browser.elements import HARMLESS_INPUT_TYPES
from outrider.server.settings.browser import BrowserSettings

SIZES = (50, 10000)
FORM = (
    '<form><p><label>Email <input type="email" name="email" required></label></p>'
    '<p><label><input type="radio" name="plan" value="free"> Free</label>'
    ' <label><input type="radio" name="plan" value="pro"> Pro</label></p>'
    '<button type="submit">Sign up</button></form>'
)
MESSAGE = """() => document.querySelector('[name=email]').after(
  Object.assign(document.createElement('span'), { textContent: 'Email is not valid' }))"""


def form_page(rows: int) -> str:
    return rows_page(rows).replace("<h1>Catalogue</h1>", f"<h1>Catalogue</h1>{FORM}")


Call = Callable[[str], Awaitable[Any]]


async def calls(page: Page) -> dict[str, tuple[str | None, Call]]:
    """Label -> (script file, how the agent calls it with that script's text). Elements are
    resolved once: what Playwright's locators cost to find them again (a walk of the whole page
    at each call) is the last row's, not the scripts'."""
    email = await page.query_selector("[name=email]")
    button = await page.query_selector("form button")
    radio = await page.query_selector("[value=pro]")
    table_field = await page.query_selector("[aria-label='Quantity of item 5']")
    assert email and button and radio and table_field
    limit = BrowserSettings().large_page_elements

    async def messages(script: str, field: ElementHandle, label: str) -> Any:
        return await page.evaluate(script, {"fields": [field], "labels": [label]})

    return {
        "page facts (every read)": ("page_facts.js", lambda s: page.evaluate(s, [limit])),
        "large page (large pages' reads)": (
            "large_page.js",
            lambda s: page.evaluate(s, [0.5, 1.5, 400]),
        ),
        "describe element (each action on an element)": (
            "describe_element.js",
            lambda s: email.evaluate(s, sorted(HARMLESS_INPUT_TYPES)),
        ),
        "obstacle (clicks, fills, selects)": ("obstacle.js", lambda s: button.evaluate(s, "click")),
        "page errors (a field, after a submit)": (
            "page_errors.js",
            lambda s: email.evaluate(s, True),
        ),
        "form messages (a form's field)": (
            "form_messages.js",
            lambda s: messages(s, email, "Email"),
        ),
        "form messages (a field outside any form)": (
            "form_messages.js",
            lambda s: messages(s, table_field, "Quantity of item 5"),
        ),
        "choose radio (filling a radio group)": (
            "choose_radio.js",
            lambda s: radio.evaluate(s, "Pro"),
        ),
        "find in page (the find action)": (
            "find_in_page.js",
            lambda s: page.evaluate(s, ["Item 9999", 25]),
        ),
        # last: it takes what the page shows now as shown before the submit
        "watch errors (before a submit)": ("watch_errors.js", lambda s: page.evaluate(s)),
        "for comparison: a Playwright locator found again (each locator call)": (
            None,
            lambda s: page.locator("[name=email]").evaluate(s),
        ),
    }


async def one_size(browser: Browser, rows: int, before: str, rounds: int) -> dict[str, list[str]]:
    """Label -> [before ms, now ms] on a page of `rows` rows."""
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    await page.set_content(form_page(rows))
    await page.evaluate(now("watch_errors.js"))  # what form_messages compares with...
    await page.evaluate(MESSAGE)  # ...and a message the "submit" brought
    figures = {}
    for label, (name, call) in (await calls(page)).items():
        scripts = [script_at(before, name), now(name)] if name else [None, "e => 0"]
        runs = [partial(call, s) for s in scripts if s is not None]
        times = await medians(page, runs, rounds)
        cells = [f"{t:.1f}" for t in times]
        figures[label] = cells if len(cells) == 2 else ["-", *cells]
    await page.close()
    return figures


async def script_costs(browser: Browser, before: str, rounds: int) -> str:
    by_size = [await one_size(browser, rows, before, rounds) for rows in SIZES]
    rows = [[label, *by_size[0][label], *by_size[1][label]] for label in by_size[0]]
    at = f"at {before[:8]}"
    headers = ["script (when it runs)"]
    headers += [f"{n:,} rows {when}" for n in SIZES for when in (at, "now")]
    return table(headers, rows)
