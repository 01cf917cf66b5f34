"""A person answers a run's questions in the console, in Chromium: a form with a password
(the production browser agent on a fixture site, its model scripted), an approval, and a
one-time answer link used without signing in. The password reaches the page and nowhere else:
no log line, stored byte or model prompt holds it."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Locator, Page, expect

from tests.console.support import (
    Console,
    accessibility_problems,
    assert_secret_nowhere,
    part_shot,
    shot,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

CANARY = "Console-Canary-Pw-5521"
EMAIL = "ada@example.com"


async def test_watch_a_run_live_and_answer_its_form_with_a_password(console: Console) -> None:
    page = await console.signed_in("alice")
    run_id = await console.browser_run(
        "alice", "browser/interactive_login.yaml", "browser/login.html",
        task="Log me in.", interactive=True, trusted_hostnames=["127.0.0.1"],
    )  # fmt: skip
    await page.goto(f"{console.base}/runs/{run_id}")
    question = page.locator("#questions article.question-pending")
    await expect(question).to_be_visible(timeout=60_000)
    await expect(page.locator("#timeline li.event").first).to_be_visible()
    await expect(page.locator("#live-status")).to_have_text("Live: updates arrive as they happen.")
    email = question.get_by_label(re.compile("^Email"))
    password = question.get_by_label(re.compile("^Password"))
    await expect(email).to_have_attribute("type", "email")
    await expect(password).to_have_attribute("type", "password")
    await expect(email).to_have_attribute("required", "")
    await shot(page, "run-question")
    assert await accessibility_problems(page) == []
    await email.fill(EMAIL)
    await password.fill(CANARY)
    await question.get_by_role("button", name="Send answer").click()
    await expect(page.locator("#questions .question-resolved")).to_contain_text("Answered by alice")
    await expect(page.locator("#result")).to_contain_text("Logged in.", timeout=60_000)
    await expect(page.locator("#run-summary")).to_contain_text("Succeeded")
    await expect(page.locator("#live-status")).to_contain_text("The run has ended")
    await shot(page, "run-done")
    assert CANARY not in await page.content()
    assert_secret_nowhere(console, CANARY)
    await page.context.close()


async def test_a_form_asked_again_keeps_what_was_typed_but_the_password(
    console: Console,
) -> None:
    """The shop refuses a password under 8 characters: the run asks again, and the form comes
    back with the email the person gave (not the password), the page's words by the field."""
    page = await console.signed_in("alice")
    run_id = await console.browser_run(
        "alice", "browser/interactive_login.yaml", "shop/login.html",
        task="Log me in to the shop.", interactive=True, trusted_hostnames=["127.0.0.1"],
    )  # fmt: skip
    await page.goto(f"{console.base}/runs/{run_id}")
    question = page.locator("#questions article.question-pending")
    await question.get_by_label(re.compile("^Email")).fill(EMAIL, timeout=60_000)
    await question.get_by_label(re.compile("^Password")).fill("short")
    await question.get_by_role("button", name="Send answer").click()
    again = page.locator("#questions article.question-pending")
    password = again.get_by_label(re.compile("^Password"))
    await expect(password).to_have_attribute("aria-invalid", "true", timeout=60_000)
    await expect(again.get_by_label(re.compile("^Email"))).to_have_value(EMAIL)
    await expect(password).to_have_value("")
    await part_shot(page, "#questions-panel", "run-question-again")
    assert await accessibility_problems(page) == []
    page.once("dialog", lambda dialog: dialog.accept())
    await page.get_by_role("button", name="Cancel run").click()
    await expect(page.locator("#run-summary")).to_contain_text("Cancelled", timeout=30_000)
    await page.context.close()


async def test_at_phone_width_a_pending_question_comes_first(console: Console) -> None:
    """On a 390 px phone the run's question is above its summary, its first field on the first
    screen, and the banner links to it."""
    width, height = 390, 844
    page = await console.signed_in("alice", viewport={"width": width, "height": height})
    run_id = await console.browser_run(
        "alice", "browser/interactive_login.yaml", "browser/login.html",
        task="Log me in from my phone.", interactive=True, trusted_hostnames=["127.0.0.1"],
    )  # fmt: skip
    await page.goto(f"{console.base}/runs/{run_id}")
    question = page.locator("#questions article.question-pending")
    email = question.get_by_label(re.compile("^Email"))
    await expect(email).to_be_visible(timeout=60_000)
    banner = page.get_by_role("link", name=re.compile("waiting for an answer"))
    assert await banner.get_attribute("href") == "#questions-panel"
    asked = await page.locator("#questions-panel").bounding_box()
    summary = await page.locator("#run-summary").bounding_box()
    field = await email.bounding_box()
    assert asked is not None and summary is not None and field is not None
    assert asked["y"] < summary["y"], (asked, summary)
    assert field["y"] + field["height"] < height, field
    await shot(page, "phone-question-asked", full_page=False)
    assert await accessibility_problems(page) == []
    await email.fill(EMAIL)
    await question.get_by_label(re.compile("^Password")).fill(CANARY)
    await question.get_by_role("button", name="Send answer").click()
    await expect(page.locator("#result")).to_contain_text("Logged in.", timeout=60_000)
    await page.context.close()


async def test_approve_once_from_the_keyboard_alone(console: Console) -> None:
    """Held fill → the approval's three choices; the person tabs to "Approve once" and presses
    Enter, never touching the mouse."""
    page = await console.signed_in("alice")
    run_id = await console.browser_run(
        "alice", "browser/console_approval.yaml", "browser/newsletter.html",
        task="Subscribe lin@example.com to the newsletter.", interactive=True,
    )  # fmt: skip
    await page.goto(f"{console.base}/runs/{run_id}")
    question = page.locator("#questions article.question-pending")
    await expect(question).to_contain_text(
        "Type into “Email” on 127.0.0.1 — this site is not one the run trusts", timeout=60_000
    )
    always = "Allow such actions on 127.0.0.1 for the rest of this run"
    for name in ("Approve once", always, "Reject"):
        await expect(question.get_by_role("button", name=name)).to_be_visible()
    await shot(page, "run-approval")
    assert await accessibility_problems(page) == []
    await tab_to(page, question.get_by_role("button", name="Approve once"))
    await page.keyboard.press("Enter")
    await expect(page.locator("#questions .question-resolved")).to_contain_text("Approved by alice")
    await expect(page.locator("#result")).to_contain_text("Filled in the email.", timeout=60_000)
    await page.context.close()


async def test_an_answer_link_works_once_without_signing_in(console: Console) -> None:
    run_id = await console.browser_run(
        "alice", "browser/interactive_login.yaml", "browser/login.html",
        task="Log me in.", interactive=True, trusted_hostnames=["127.0.0.1"],
    )  # fmt: skip
    interaction = await console.question("alice", run_id)
    assert interaction.answer_url.startswith("/console/answer/")
    token = interaction.answer_url.rsplit("/", 1)[1]
    stranger = await console.context()  # no cookie, no key
    page = await stranger.new_page()
    referrers: list[str] = []  # what the page's own requests (style, scripts, form) tell
    page.on("request", lambda request: referrers.append(request.headers.get("referer", "")))
    opened = await page.goto(console.origin + interaction.answer_url)
    assert opened is not None and opened.headers["referrer-policy"] == "no-referrer"
    await expect(page.get_by_role("heading", level=1)).to_have_text(
        "An agent needs information from you"
    )
    await shot(page, "answer-link")
    assert await accessibility_problems(page) == []
    await page.get_by_label(re.compile("^Email")).fill(EMAIL)
    await page.get_by_label(re.compile("^Password")).fill(CANARY)
    await page.get_by_role("button", name="Send answer").click()
    await expect(page.get_by_role("status")).to_contain_text("Answered by answer-link")
    assert CANARY not in await page.content()
    assert len(referrers) > 2 and not any(token in referrer for referrer in referrers)
    run = await console.ended("alice", run_id)
    assert run.outcome.success, run.outcome
    assert_secret_nowhere(console, CANARY)
    assert not any(token in line for line in console.logs.lines)  # nor the access log
    again = await page.goto(console.origin + interaction.answer_url)
    assert again is not None and again.status == 410
    await expect(page.get_by_role("status")).to_contain_text("already answered")
    await shot(page, "answer-link-used")
    assert await accessibility_problems(page) == []
    await stranger.close()


async def tab_to(page: Page, target: Locator, limit: int = 80) -> None:
    """Presses Tab until `target` has the focus (as a keyboard user reaches it)."""
    for _ in range(limit):
        if await target.evaluate("element => element === document.activeElement"):
            return
        await page.keyboard.press("Tab")
    raise AssertionError(f"{target} cannot be reached with the Tab key")
