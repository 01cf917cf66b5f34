"""Questions in a person's words, on every door. One browser run (Chromium, a fixture login page
on a host the run does not trust, a scripted model) asks one of each question: approving a
typing, a password (a secret: the console's answer page) and approving the submit. A person
answers them through an MCP client; then every text that asked them is read: the MCP client's
elicitations and progress, the answer page, the console's run page (the questions and their
timeline rows) and the A2A task's messages. None names an element ref or a setting; each
question starts with a capital and names its host once."""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

import httpx
import pytest

from tests.console.support import Console
from tests.mcp.support import Person, Progress, answer_on_the_page, client_at, text_of
from tests.support.harness import eventually

pytestmark = pytest.mark.asyncio(loop_scope="module")

HOST = "127.0.0.1"
UNTRUSTED = "this site is not one the run trusts"
QUESTIONS = {
    f"Type into “Email” on {HOST} — {UNTRUSTED}",
    f"The agent needs Password for “Member login” on {HOST}.",
    f"Submit the form “Member login” on {HOST} — {UNTRUSTED}",
}
_REF = re.compile(r"\bE\d+\b")
_SETTINGS = re.compile(
    r"trusted_?hostnames|unsafe_?mode|allowed_?domains|blocked_?domains|refuse_?held|"
    r"cancel_?on_?disconnect|OUTRIDER_|interactive",
    re.IGNORECASE,
)
_QUESTION_ROWS = ("approval_requested", "interactive:form_data:request")


def in_words(text: str) -> None:
    """A text that asks a person something: no element ref, no setting name."""
    assert not _REF.search(text), f"an element ref in {text!r}"
    assert not _SETTINGS.search(text), f"a setting's name in {text!r}"


def a_question(sentence: str) -> str:
    in_words(sentence)
    assert sentence[:1].isupper(), f"not a sentence: {sentence!r}"
    assert sentence.count(HOST) == 1, f"the host not once in {sentence!r}"
    return sentence


async def test_every_question_reads_in_a_person_s_words(console: Console) -> None:
    run_id = await console.browser_run(
        "alice",
        "browser/every_question.yaml",
        "browser/login.html",
        task="Log in.",
        interactive=True,
    )
    person, progress = Person(values={}, decision="approve_once"), Progress()
    page_texts: list[str] = []

    async def answer_pages() -> None:
        while True:
            await eventually(lambda: len(person.pages()) > len(page_texts), within=120)
            url = person.pages()[len(page_texts)].url
            async with httpx.AsyncClient(timeout=30) as browser:
                page_texts.append((await browser.get(url)).text)
            await answer_on_the_page(url, "correct-horse-battery")

    async with client_at(
        f"{console.origin}/mcp", console.keys.keys["alice"], "legacy", person
    ) as client:
        pages = asyncio.create_task(answer_pages())
        try:
            result = await client.call_tool(
                "get_run", {"run": run_id, "wait": True}, progress_callback=progress
            )
        finally:
            pages.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pages
    assert (result.structured_content or {}).get("final_answer") == "Logged in.", text_of(result)

    # MCP: the elicitations (forms and the answer page's link) and the progress that told them
    asked = [a_question(p.message.removesuffix(" Allow it?")) for p in person.forms()]
    asked += [a_question(p.message.split(" Enter it on")[0]) for p in person.pages()]
    assert set(asked) == {q + ("." if q.endswith("trusts") else "") for q in QUESTIONS}
    for form in person.forms():
        in_words(str(form.requested_schema))  # field titles, choices
    for told in progress.messages:
        if told.startswith("Waiting for"):
            in_words(told)

    # the console's answer page, its run page (questions, timeline rows)
    (answer_page,) = page_texts
    assert_sentence_in(answer_page, f"The agent needs Password for “Member login” on {HOST}.")
    signed_in = await console.signed_in("alice")
    await signed_in.goto(f"{console.base}/runs/{run_id}")
    articles = signed_in.locator("article.question")
    await articles.first.wait_for()
    for text in await articles.all_inner_texts():
        in_words(text)
    shown = {a_question(t) for t in await articles.locator("p.description").all_inner_texts()}
    assert shown == QUESTIONS
    rows = await _question_rows(signed_in)
    assert {a_question(row) for row in rows} == QUESTIONS
    await signed_in.context.close()

    # A2A: the task's input-required messages, text and data
    messages = await _a2a_history(console, run_id)
    asking = [m for m in messages if any("data" in part for part in m["parts"])]
    assert len(asking) == 3, messages
    for message in asking:
        in_words(" ".join(part.get("text", "") for part in message["parts"]))
        data = next(part["data"] for part in message["parts"] if "data" in part)
        in_words(" ".join(choice["label"] for choice in data.get("choices", [])))
        if "question" in data:
            assert a_question(data["question"]) in QUESTIONS


def assert_sentence_in(html: str, sentence: str) -> None:
    found = re.search(r'<p class="description">([^<]*)</p>', html)
    assert found and found.group(1) == sentence, html[:3000]
    in_words(re.sub(r"<[^>]+>|\b(?:name|id|for)=\"[^\"]*\"", " ", html))


async def _question_rows(page: Any) -> list[str]:
    rows: list[str] = []
    for row in await page.locator("li.event-question").all():
        if (await row.locator(".name").inner_text()) in _QUESTION_ROWS:
            rows.append(await row.locator(".words").inner_text())
    return rows


async def _a2a_history(console: Console, run_id: str) -> list[dict[str, Any]]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "GetTask",
        "params": {"id": run_id, "historyLength": 100},
    }
    headers = console.keys.header("alice") | {"A2A-Version": "1.0"}
    async with httpx.AsyncClient(timeout=30) as http:
        answer = await http.post(f"{console.origin}/a2a", json=body, headers=headers)
    history: list[dict[str, Any]] = answer.json()["result"]["history"]
    return [m for m in history if m["role"] == "ROLE_AGENT"]
