"""A person takes a run's browser over in the console, in Chromium, and hands it back. The whole
journey once with the mouse: sign in, watch the run live, answer its form with a password,
approve the submit the firewall holds, then, at a second-factor prompt the scripted agent cannot
pass, watch the live view, take over, click the code field on the screen, type the code, press
Enter and hand back with a note; the run completes. Then the takeover from the keyboard alone.
The password and the code reach the page and nowhere else."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from tests.browser.takeover_kit import CODE, CODE_FIELD
from tests.console.support import (
    SHOTS,
    Console,
    accessibility_problems,
    assert_secret_nowhere,
    shot,
)
from tests.console.test_answering import CANARY, EMAIL, tab_to
from tests.support.harness import eventually

pytestmark = pytest.mark.asyncio(loop_scope="module")
VIEWPORT = (1280, 800)
SUBMIT_ASKED = "Submit the form “Bank sign-in” on 127.0.0.1 — this site is not one the run trusts"


async def asking_run(console: Console, page: Page) -> str:
    """A run whose agent asks for a person, open in `page` once it asks."""
    run_id = await console.browser_run(
        "alice", "browser/console_takeover.yaml", "takeover/verify.html",
        task="Read my account balance.", interactive=True,
    )  # fmt: skip
    await page.goto(f"{console.base}/runs/{run_id}")
    controls = page.locator("#live-controls")
    await expect(controls).to_contain_text("The agent asks for a person", timeout=60_000)
    await expect(controls).to_contain_text("A six-digit code was sent")
    screen = page.locator("#screen")
    await eventually(lambda: screen.evaluate("image => image.naturalWidth > 0"), within=30)
    return run_id


async def part_shot(page: Page, selector: str, name: str) -> None:
    """One part of the page as tests/artifacts/console/<name>.png (for docs/console.md)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.locator(selector).screenshot(path=str(SHOTS / f"{name}.png"))


def page_of(console: Console, run_id: str) -> str:
    """The URL the run's browser shows now (read on the server, as the screen shows it)."""
    control = console.server.runs.browsers.of(run_id)
    return control.live.where() if control is not None and control.live is not None else ""


async def test_sign_in_answer_approve_take_over_and_hand_back(console: Console) -> None:
    page = await console.signed_in("alice")
    run_id = await console.browser_run(
        "alice", "browser/console_journey.yaml", "takeover/login.html",
        task="Sign in to my bank and read the balance.", interactive=True,
    )  # fmt: skip
    await page.goto(f"{console.base}/runs/{run_id}")
    question = page.locator("#questions article.question-pending")
    await expect(question).to_contain_text("The agent needs information", timeout=60_000)
    await question.get_by_label(re.compile("^Email")).fill(EMAIL)
    await question.get_by_label(re.compile("^Password")).fill(CANARY)
    await question.get_by_role("button", name="Send answer").click()
    approval = page.locator("#questions article.question-pending")
    await expect(approval).to_contain_text(SUBMIT_ASKED, timeout=60_000)
    await approval.get_by_role("button", name="Approve once").click()
    await expect(page.locator("#questions .question-resolved")).to_have_count(2)
    controls = page.locator("#live-controls")
    await expect(controls).to_contain_text("The agent asks for a person", timeout=60_000)
    await expect(controls).to_contain_text("A six-digit code was sent")
    await eventually(lambda: page.locator("#screen").evaluate("i => i.naturalWidth > 0"), 30)
    await shot(page, "run-live-view-asked")
    await part_shot(page, "#live-view", "live-view-asked")
    assert await accessibility_problems(page) == []
    await controls.get_by_role("button", name="Take over").click()
    await expect(controls).to_contain_text("You have control of the browser")
    screen = page.locator("#screen")
    box = await screen.bounding_box()
    assert box is not None
    at = {
        "x": CODE_FIELD[0] * box["width"] / VIEWPORT[0],
        "y": CODE_FIELD[1] * box["height"] / VIEWPORT[1],
    }
    await screen.click(position=at)  # on the code field, as the screen shows it
    await page.keyboard.type(CODE)
    await page.keyboard.press("Enter")
    await eventually(lambda: "/takeover/verified.html" in page_of(console, run_id), within=30)
    await shot(page, "run-live-view-person")
    await part_shot(page, "#live-view", "live-view-person")
    assert await accessibility_problems(page) == []
    await page.get_by_label("Note for the agent").fill("Code entered.")
    await controls.get_by_role("button", name="Hand back").click()
    await expect(page.locator("#result")).to_contain_text(
        "The balance is 1,204.50 EUR.", timeout=60_000
    )
    await expect(controls).to_contain_text("The run has ended")
    timeline = page.locator("#timeline")
    await expect(timeline).to_contain_text("takeover_ended")
    content = await page.content()
    assert CODE not in content and CANARY not in content
    assert_secret_nowhere(console, CODE)
    assert_secret_nowhere(console, CANARY)
    await page.context.close()


async def test_the_keyboard_alone_signs_in_answers_approves_takes_over_and_hands_back(
    console: Console,
) -> None:
    """The same journey without the mouse: Tab, typing, Enter and the console's Send buttons."""
    run_id = await console.browser_run(
        "alice", "browser/console_journey.yaml", "takeover/login.html",
        task="Sign in to my bank by keyboard.", interactive=True,
    )  # fmt: skip
    page = await (await console.context()).new_page()
    await page.goto(f"{console.base}/")
    await tab_to(page, page.get_by_label("API key"))
    await page.keyboard.type(console.keys.keys["alice"])
    await page.keyboard.press("Enter")
    await page.wait_for_url(f"{console.base}/")
    await tab_to(page, page.locator(f"#run-{run_id}"))
    await page.keyboard.press("Enter")
    await page.wait_for_url(f"{console.base}/runs/{run_id}")
    question = page.locator("#questions article.question-pending")
    await expect(question).to_contain_text("The agent needs information", timeout=60_000)
    await tab_to(page, question.get_by_label(re.compile("^Email")))
    await page.keyboard.type(EMAIL)
    await page.keyboard.press("Tab")
    await page.keyboard.type(CANARY)  # the password field comes next
    await page.keyboard.press("Enter")
    approval = page.locator("#questions article.question-pending")
    await expect(approval).to_contain_text(SUBMIT_ASKED, timeout=60_000)
    await tab_to(page, approval.get_by_role("button", name="Approve once"))
    await page.keyboard.press("Enter")
    controls = page.locator("#live-controls")
    await expect(controls).to_contain_text("The agent asks for a person", timeout=60_000)
    await tab_to(page, controls.get_by_role("button", name="Take over"))
    await page.keyboard.press("Enter")
    await expect(controls).to_contain_text("You have control of the browser")
    await tab_to(page, controls.get_by_role("button", name="Send Tab"))
    await page.keyboard.press("Enter")  # the page's focus moves to its code field
    await tab_to(page, page.locator("#screen"))
    await page.keyboard.type(CODE)
    await page.keyboard.press("Enter")
    await eventually(lambda: "/takeover/verified.html" in page_of(console, run_id), within=30)
    await tab_to(page, controls.get_by_role("button", name="Hand back"))
    await page.keyboard.press("Enter")
    await expect(page.locator("#result")).to_contain_text(
        "The balance is 1,204.50 EUR.", timeout=60_000
    )
    assert_secret_nowhere(console, CANARY)
    await page.context.close()


async def test_a_reader_watches_but_cannot_take_over_and_another_tenant_sees_nothing(
    console: Console,
) -> None:
    alice = await console.signed_in("alice")
    run_id = await asking_run(console, alice)
    reader = await console.signed_in("reader")  # runs.read only
    await reader.goto(f"{console.base}/runs/{run_id}")
    controls = reader.locator("#live-controls")
    await expect(controls).to_contain_text("The agent asks for a person")
    await expect(controls.get_by_role("button")).to_have_count(0)
    await eventually(lambda: reader.locator("#screen").evaluate("i => i.naturalWidth > 0"), 30)
    refused = await reader.evaluate(
        """async () => {
            const section = document.getElementById("live-view");
            const response = await fetch(section.dataset.input, {
                method: "POST",
                headers: {"Content-Type": "application/json", "X-CSRF-Token": section.dataset.csrf},
                body: JSON.stringify({events: [{text: {text: "x"}}]}),
            });
            return [response.status, (await response.json()).error.reason];
        }"""
    )
    assert refused == [403, "MISSING_SCOPE"]
    bob = await console.signed_in("bob")  # another tenant
    screen = await bob.request.get(f"{console.base}/runs/{run_id}/screen")
    assert screen.status == 404
    await alice.get_by_role("button", name="Decline").click()  # the run goes on without one
    await expect(alice.locator("#result")).to_contain_text("declined", timeout=60_000)
    for page in (alice, reader, bob):
        await page.context.close()
