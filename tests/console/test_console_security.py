"""What a session may do and what nobody else may: cookie flags, security headers, CSRF
refusals, tenants, scopes, and a key removed from the key file ending its sessions."""

from __future__ import annotations

import re
import time

import pytest
from playwright.async_api import Page, expect

from outrider.server.console_edge.headers import CONTENT_SECURITY_POLICY
from outrider.v1 import interaction_pb2 as ip
from tests.console.support import Console, accessibility_problems, shot
from tests.security.tenants import CALLER

pytestmark = pytest.mark.asyncio(loop_scope="module")

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)", re.IGNORECASE)


async def held_run(console: Console, principal: str = "alice") -> tuple[str, str]:
    """A run waiting for an answer: (run id, interaction id)."""
    run_id = await console.browser_run(
        principal, "browser/interactive_login.yaml", "browser/login.html",
        task="Log me in to the member area.", interactive=True, trusted_hostnames=["127.0.0.1"],
    )  # fmt: skip
    interaction = await console.question(principal, run_id)
    return run_id, interaction.name.removeprefix("interactions/")


async def test_a_wrong_key_is_refused_and_the_session_cookie_is_locked_down(
    console: Console,
) -> None:
    context = await console.context()
    page = await context.new_page()
    response = await page.goto(f"{console.base}/")
    assert response is not None and "/console/sign-in" in page.url
    assert await accessibility_problems(page) == []
    await page.get_by_label("API key").fill("not-a-key")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("alert")).to_have_text("That API key is not valid.")
    await shot(page, "sign-in-refused")
    assert await context.cookies() == []
    await page.get_by_label("API key").fill(console.keys.keys["alice"])
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url(f"{console.base}/")
    (cookie,) = await context.cookies()
    assert cookie["name"] == "outrider-console" and cookie["path"] == "/console"
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert not cookie["secure"]  # plain HTTP here; test_sessions checks Secure under TLS
    assert 8 * 3600 - 120 < cookie["expires"] - time.time() <= 8 * 3600
    assert console.keys.keys["alice"] not in cookie["value"]
    assert await page.evaluate("document.cookie") == ""  # no script can read it
    await context.close()


async def test_every_page_has_a_strict_content_security_policy(console: Console) -> None:
    page = await console.signed_in("alice")
    run_id, _ = await held_run(console)
    link = (await console.question("alice", run_id)).answer_url
    for path in ("/console/", f"/console/runs/{run_id}", "/console/sign-in", link):
        response = await page.request.get(console.origin + path)
        headers = response.headers
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY, path
        assert "'unsafe-inline'" not in CONTENT_SECURITY_POLICY
        assert (
            headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
        )
        no_referrer = path == link  # the token in its URL never leaves as a Referer
        referrer = "no-referrer" if no_referrer else "same-origin"
        assert headers["referrer-policy"] == referrer and headers["cache-control"] == "no-store"
        html = await response.text()
        assert not INLINE_SCRIPT.search(html) and " style=" not in html and "<style" not in html
    script = await page.request.get(f"{console.base}/static/vendor/htmx.min.js")
    assert script.ok and script.headers["content-type"].startswith("text/javascript")
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security" in m.text else None)
    await page.goto(f"{console.base}/runs/{run_id}")
    await expect(page.locator("#questions .question-pending")).to_be_visible(timeout=60_000)
    assert blocked == []  # htmx and the page's own script work under the policy
    shown = re.search(rf'/console/runs/{run_id}/artifacts/[^"?]+', await page.content())
    assert shown, "the run page links no screenshot"
    screenshot = await page.request.get(console.origin + shown.group(0))
    assert screenshot.ok and screenshot.headers["cache-control"] == "no-store"  # kept in no cache
    await cancel(console, page, run_id)


async def test_a_change_without_the_csrf_token_or_from_another_site_is_refused(
    console: Console,
) -> None:
    page = await console.signed_in("alice")
    run_id, interaction_id = await held_run(console)
    await page.goto(f"{console.base}/runs/{run_id}")
    token = await page.locator("input[name=csrf]").first.input_value()
    cancel_url = f"{console.base}/runs/{run_id}/cancel"
    without = await page.request.post(cancel_url, form={"reason": "forged"})
    assert without.status == 403 and "CSRF_REFUSED" in await without.text()
    wrong = await page.request.post(cancel_url, form={"csrf": token[:-2] + "xx"})
    assert wrong.status == 403
    elsewhere = await page.request.post(
        cancel_url, form={"csrf": token}, headers={"Origin": "https://evil.example"}
    )
    assert elsewhere.status == 403
    answer_url = f"{console.base}/interactions/{interaction_id}/input"
    forged_answer = await page.request.post(answer_url, form={"field:E1": "x@example.com"})
    assert forged_answer.status == 403
    interaction = await console.question("alice", run_id)
    assert interaction.state == ip.INTERACTION_STATE_PENDING  # nothing was answered or cancelled
    accepted = await page.request.post(cancel_url, form={"csrf": token, "reason": "test over"})
    assert accepted.ok  # the same request with the token from the page is taken
    await console.ended("alice", run_id)


async def test_another_tenant_sees_nothing_of_it(console: Console) -> None:
    run_id, interaction_id = await held_run(console)
    page = await console.signed_in("bob")
    await expect(page.locator("#runs")).to_contain_text("No runs yet")
    assert run_id not in await page.content()
    await shot(page, "runs-empty")
    assert await accessibility_problems(page) == []
    for path in (f"/runs/{run_id}", f"/runs/{run_id}/live"):
        assert (await page.request.get(console.base + path)).status == 404, path
    searched = await page.request.get(f"{console.base}/runs-table?q=Log+me+in")
    assert "No run matches these filters" in await searched.text()
    token = await page.locator("input[name=csrf]").first.input_value()
    answer = await page.request.post(
        f"{console.base}/interactions/{interaction_id}/input",
        form={"csrf": token, "field:E1": "bob@example.com"},
    )
    assert answer.status == 404
    cancelled = await page.request.post(
        f"{console.base}/runs/{run_id}/cancel", form={"csrf": token}
    )
    assert cancelled.status == 404
    await page.goto(f"{console.base}/runs/{run_id}")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Not found")
    await shot(page, "not-found")
    assert await accessibility_problems(page) == []
    alice = await console.signed_in("alice")
    await cancel(console, alice, run_id)
    await page.context.close()


async def test_a_reader_watches_but_cannot_answer_or_cancel(console: Console) -> None:
    run_id, interaction_id = await held_run(console)
    page = await console.signed_in("reader")
    await page.goto(f"{console.base}/runs/{run_id}")
    question = page.locator("#questions .question-pending")
    await expect(question).to_contain_text("lacks the interactions.answer scope", timeout=60_000)
    await expect(question.get_by_role("button")).to_have_count(0)
    assert await page.get_by_role("button", name="Cancel run").count() == 0
    assert "/console/answer/" not in await page.content()  # no link either
    token = await page.locator("input[name=csrf]").first.input_value()
    answer = await page.request.post(
        f"{console.base}/interactions/{interaction_id}/input",
        form={"csrf": token, "field:E1": "r@example.com"},
    )
    assert answer.status == 403
    alice = await console.signed_in("alice")
    await cancel(console, alice, run_id)
    await page.context.close()


async def test_removing_the_key_from_the_key_file_ends_its_sessions(console: Console) -> None:
    console.keys.add("temp", "alpha", ["runs.read"])
    assert console.server.keyring.reload()
    page = await console.signed_in("temp")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Runs")
    console.keys.remove("temp")
    assert console.server.keyring.reload()
    await page.goto(f"{console.base}/")
    assert "/console/sign-in" in page.url  # the cookie is still there, the key is not
    await page.context.close()


async def test_a_removed_key_ends_its_open_run_page_before_any_new_link(
    console: Console,
) -> None:
    """The run page's stream checks the session again at every batch and heartbeat (5 s here):
    once the key is gone, the page says so and stops, and no new answer link reaches it."""
    console.keys.add("pager", "alpha", CALLER)
    assert console.server.keyring.reload()
    run_id, _ = await held_run(console)
    page = await console.signed_in("pager")
    await page.goto(f"{console.base}/runs/{run_id}")
    await expect(page.locator("#questions .question-pending")).to_be_visible(timeout=60_000)
    assert "/console/answer/" in await page.content()  # the link pager may see while it may
    console.keys.remove("pager")
    assert console.server.keyring.reload()
    status = page.locator("#live-status")
    await expect(status).to_contain_text("Your session ended", timeout=30_000)
    await expect(status).to_have_attribute("data-state", "signed-out")
    await shot(page, "run-session-ended")
    await cancel(console, await console.signed_in("alice"), run_id)
    await page.context.close()


async def cancel(console: Console, page: Page, run_id: str) -> None:
    """Cancels from the run page, as a person would (confirming the dialog)."""
    await page.goto(f"{console.base}/runs/{run_id}")
    page.once("dialog", lambda dialog: dialog.accept())
    await page.get_by_role("button", name="Cancel run").click()
    await expect(page.locator("#run-summary")).to_contain_text("Cancelled", timeout=30_000)
    await console.ended("alice", run_id)
    await page.context.close()
