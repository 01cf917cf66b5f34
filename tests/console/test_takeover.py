"""A person takes a run's browser over in the console, in Chromium, and hands it back. The whole
journey once with the mouse: sign in, watch the run live, answer its form with a password,
approve the submit the firewall holds, then, at a second-factor prompt the scripted agent cannot
pass, watch the live view, take over, click the code field on the screen, type the code, press
Enter and hand back with a note; the run completes. Then the takeover from the keyboard alone.
The password and the code reach the page and nowhere else."""

from __future__ import annotations

import re
import time
from datetime import datetime

import pytest
from playwright.async_api import Locator, Page, expect

from tests.browser.takeover_kit import CODE, CODE_FIELD, NEW_TAB_LINK, TROUBLE_LINK
from tests.console.support import (
    Console,
    accessibility_problems,
    assert_secret_nowhere,
    part_shot,
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
    text = controls.get_by_label("Text", exact=True)  # hidden as typed, cleared once sent
    await tab_to(page, text)
    await page.keyboard.type(CODE)
    await page.keyboard.press("Enter")
    await expect(text).to_have_value("")
    await tab_to(page, page.locator("#screen"))
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


async def test_at_phone_width_the_screen_comes_first_when_a_person_is_asked(
    console: Console,
) -> None:
    width, height = 390, 844
    page = await console.signed_in("alice", viewport={"width": width, "height": height})
    run_id = await asking_run(console, page)
    await shot(page, "phone-person-asked", full_page=False)
    screen = await page.locator("#screen").bounding_box()
    summary = await page.locator("#run-summary").bounding_box()
    assert screen is not None and summary is not None
    assert screen["width"] >= width - 2, screen  # the window's width, not a panel's
    assert screen["y"] + screen["height"] < height and screen["y"] < summary["y"], screen
    take_over = await page.get_by_role("button", name="Take over").bounding_box()
    assert take_over is not None and take_over["y"] + take_over["height"] < height
    banner = page.get_by_role("link", name=re.compile("waiting for a person at its browser"))
    assert await banner.get_attribute("href") == "#live-view"
    await expect(page.locator("#now")).to_contain_text("Waiting for you: A six-digit code")
    overflow = await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 1, f"the page scrolls sideways by {overflow}px"
    assert await accessibility_problems(page) == []
    await page.get_by_role("button", name="Decline").click()
    await expect(page.locator("#result")).to_contain_text("declined", timeout=60_000)
    await page.context.close()
    await console.ended("alice", run_id)


async def test_closing_the_tab_in_control_gives_the_browser_back_within_seconds(
    console: Console,
) -> None:
    """alice takes over and works the page (the bar follows it: its title, address and tabs);
    a colleague watching sees who has control and until when; alice closes her tab and the
    agent has the browser again within seconds, where it used to wait 5 minutes."""
    alice = await console.signed_in("alice")
    run_id = await asking_run(console, alice)
    reader = await console.signed_in("reader")
    await reader.goto(f"{console.base}/runs/{run_id}")
    await expect(reader.locator("#screen-title")).to_have_text("Verify it is you", timeout=30_000)
    controls = alice.locator("#live-controls")
    await controls.get_by_role("button", name="Take over").click()
    await expect(controls).to_contain_text("You have control of the browser")
    assert await alice.get_by_label("Text", exact=True).get_attribute("type") == "password"
    await click_screen(alice, TROUBLE_LINK)
    await expect(alice.locator("#screen-title")).to_have_text("Sign-in help", timeout=30_000)
    await alice.get_by_role("button", name="Back", exact=True).click()
    await expect(alice.locator("#screen-url")).to_contain_text("/takeover/verify.html")
    await click_screen(alice, NEW_TAB_LINK)
    await expect(alice.locator("#screen-tabs")).to_have_text("Tab 2 of 2", timeout=30_000)
    await expect(reader.locator("#screen-tabs")).to_have_text("Tab 2 of 2")
    await part_shot(alice, "#live-view", "live-view-in-control")
    watched = reader.locator("#live-controls")
    await expect(watched).to_contain_text("alice has control of the browser until")
    until = watched.locator("time.control-until")
    lease_end = await shown_time(until)
    await part_shot(reader, "#live-view", "live-view-watching-control")
    assert await accessibility_problems(reader) == []
    closed = time.monotonic()
    await alice.context.close()  # the tab (and its browser window) closes

    async def ends_in_seconds() -> bool:  # every viewer is told the new end at once
        return (lease_end - await shown_time(until)).total_seconds() > 60

    await eventually(ends_in_seconds, within=20)
    await expect(watched).not_to_contain_text("has control", timeout=40_000)
    returned = time.monotonic() - closed
    assert returned < 30, f"control came back {returned:.1f} s after the tab closed"
    timeline = reader.locator("#timeline")
    await expect(timeline).to_contain_text("the console page of alice closed")
    await expect(reader.locator("#result")).to_contain_text("left before entering the code")
    await reader.context.close()


async def click_screen(page: Page, at: tuple[float, float]) -> None:
    """A click where `at` (viewport pixels) shows on the screen."""
    screen = page.locator("#screen")
    box = await screen.bounding_box()
    assert box is not None
    await screen.click(
        position={"x": at[0] * box["width"] / VIEWPORT[0], "y": at[1] * box["height"] / VIEWPORT[1]}
    )


async def shown_time(element: Locator) -> datetime:
    return datetime.fromisoformat(str(await element.get_attribute("datetime")))
