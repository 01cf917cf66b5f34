"""The official a2a-sdk client against a real server: Outrider's browser agent in Debian's
Chromium on a fixture site and its research agent on a fixture web, both with scripted models.
A task asks for form data and for an approval, answered by the client's next messages; a dropped
stream leaves the run going and a resubscription picks it up; a secret field goes through the
one-time answer link only; a task is cancelled; a research report comes with its sources."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from a2a.client import Client
from a2a.types import a2a_pb2 as a2a
from a2a.utils.errors import TaskNotCancelableError, UnsupportedOperationError

from tests.a2a.support import A2AServer, data_of, message, text_of
from tests.console.support import assert_secret_nowhere

pytestmark = pytest.mark.asyncio(loop_scope="module")

EMAIL = "lin@example.com"
CANARY = "A2A-Canary-Pw-8813"
INPUT = a2a.TASK_STATE_INPUT_REQUIRED


def browse(served: A2AServer, scenario: str, page: str, task: str, **extra: Any) -> a2a.Message:
    data = {"url": f"{served.sites}/{page}", "options": {"model": served.model(scenario)}}
    return message(task, data | extra)


async def send(client: Client, sent: a2a.Message) -> a2a.Task:
    """message/send (the client configured without streaming): the task it returns."""
    async for response in client.send_message(a2a.SendMessageRequest(message=sent)):
        return response.task
    raise AssertionError("no response")


async def states_until_end(stream: Any) -> list[Any]:
    return [response async for response in stream]


def state_of(response: a2a.StreamResponse) -> int:
    kind = response.WhichOneof("payload")
    if kind == "task":
        return int(response.task.status.state)
    if kind == "status_update":
        return int(response.status_update.status.state)
    return 0


async def test_a_task_asks_for_input_and_approval_across_a_dropped_stream(
    served: A2AServer,
) -> None:
    streaming = await served.client("alice")
    first = browse(
        served, "browser/a2a_newsletter.yaml", "browser/newsletter.html", "Subscribe me."
    )
    stream = streaming.send_message(a2a.SendMessageRequest(message=first))
    opening = await anext(stream)
    assert opening.WhichOneof("payload") == "task"  # a task stream begins with the task
    task_id, context_id = opening.task.id, opening.task.context_id
    assert opening.task.history[0].message_id == first.message_id
    await stream.aclose()  # the client goes away: the run goes on, and asks for the email

    plain = await served.client("alice", streaming=False)
    asked = await _when(plain, task_id, lambda t: t.status.state == INPUT)
    form = data_of(asked.status.message.parts)
    assert form["type"] == "outrider.form_data_request"
    assert [(f["label"], f["type"]) for f in form["fields"]] == [("Email", "email")]
    assert "answerUrl" not in form  # nothing secret: asked here
    ref = form["fields"][0]["ref"]

    resubscribed = streaming.subscribe(a2a.SubscribeToTaskRequest(id=task_id))
    snapshot = await anext(resubscribed)
    assert snapshot.task.id == task_id and snapshot.task.status.state == INPUT
    following = asyncio.create_task(states_until_end(resubscribed))

    answer = message(data={"values": {ref: EMAIL}}, task_id=task_id, context_id=context_id)
    answered = await states_until_end(
        streaming.send_message(a2a.SendMessageRequest(message=answer))
    )
    assert answered[0].task.id == task_id
    held = answered[-1].status_update.status
    assert held.state == INPUT, "the stream ends at the next question"
    approval = data_of(held.message.parts)
    assert approval["type"] == "outrider.approval_request" and approval["action"] == "submit"
    assert [c["decision"] for c in approval["choices"]] == ["approve", "approve_always", "reject"]
    assert text_of(answered[0].task.status.message.parts) == "Answered by alice"

    followed = await asyncio.wait_for(following, 60)  # the resubscription, meanwhile
    assert state_of(followed[-1]) == INPUT and followed[-1].status_update.status == held

    approve = message(data={"decision": "approve"}, task_id=task_id)
    done = await send(plain, approve)  # blocking: returns once the task ends
    assert done.status.state == a2a.TASK_STATE_COMPLETED
    assert text_of(done.status.message.parts) == "Subscribed."
    await _check_artifacts(served, done)
    assert EMAIL not in str(await plain.get_task(a2a.GetTaskRequest(id=task_id)))


async def _check_artifacts(served: A2AServer, done: a2a.Task) -> None:
    artifacts = {a.artifact_id: a for a in done.artifacts}
    assert text_of(artifacts.pop("answer").parts) == "Subscribed."
    assert artifacts, "screenshots"
    shot = next(iter(artifacts.values())).parts[0]
    assert shot.media_type in ("image/png", "image/jpeg") and shot.url.startswith(served.origin)
    image = await served.http_for("alice").get(shot.url)
    assert image.status_code == 200 and image.content[:4] in (b"\x89PNG", b"\xff\xd8\xff\xe0")
    stranger = await served.http_for("bob").get(shot.url)
    assert stranger.status_code == 404  # another tenant's artifact does not exist for bob


async def test_a_secret_field_is_answered_through_the_link_only(served: A2AServer) -> None:
    plain = await served.client("alice", streaming=False)
    login = browse(
        served, "browser/interactive_login.yaml", "browser/login.html", "Log me in.",
        trustedHostnames=["127.0.0.1"],
    )  # fmt: skip
    asked = await send(plain, login)
    assert asked.status.state == INPUT
    form = data_of(asked.status.message.parts)
    fields = {f["label"]: f for f in form["fields"]}
    assert fields["Password"].get("secret") is True and "secret" not in fields["Email"]
    link = form["answerUrl"]
    assert link.startswith(f"{served.origin}/console/answer/")
    assert link in text_of(asked.status.message.parts)

    values = {f["ref"]: CANARY for f in form["fields"]}
    with pytest.raises(UnsupportedOperationError, match="secret field"):
        await send(plain, message(data={"values": values}, task_id=asked.id))

    streaming = await served.client("alice")
    resubscribed = streaming.subscribe(a2a.SubscribeToTaskRequest(id=asked.id))
    assert (await anext(resubscribed)).task.status.state == INPUT
    following = asyncio.create_task(states_until_end(resubscribed))
    async with httpx.AsyncClient() as person:  # someone with the link, in a browser
        page = {f"field:{fields['Email']['ref']}": EMAIL}
        page[f"field:{fields['Password']['ref']}"] = CANARY
        sent = await person.post(link, data=page, headers={"Origin": served.origin})
        assert sent.status_code == 200
    followed = await asyncio.wait_for(following, 60)
    assert state_of(followed[-1]) == a2a.TASK_STATE_COMPLETED
    assert "Answered by answer-link" in [
        text_of(r.status_update.status.message.parts)
        for r in followed
        if r.WhichOneof("payload") == "status_update"
    ]
    final = await plain.get_task(a2a.GetTaskRequest(id=asked.id))
    assert CANARY not in str(final) and CANARY not in str(followed)
    assert_secret_nowhere(served, CANARY)  # type: ignore[arg-type]


async def test_cancel_a_waiting_task(served: A2AServer) -> None:
    plain = await served.client("alice", streaming=False)
    sent = browse(served, "browser/a2a_newsletter.yaml", "browser/newsletter.html", "Subscribe.")
    asked = await send(plain, sent)
    assert asked.status.state == INPUT
    cancelled = await plain.cancel_task(a2a.CancelTaskRequest(id=asked.id))
    assert cancelled.status.state == a2a.TASK_STATE_CANCELED
    assert "cancelled by alice" in text_of(cancelled.status.message.parts)
    with pytest.raises(TaskNotCancelableError):
        await plain.cancel_task(a2a.CancelTaskRequest(id=asked.id))
    with pytest.raises(UnsupportedOperationError, match="has ended"):
        await send(plain, message(data={"values": {"E1": EMAIL}}, task_id=asked.id))
    streaming = await served.client("alice")
    with pytest.raises(UnsupportedOperationError, match="has ended"):
        await anext(streaming.subscribe(a2a.SubscribeToTaskRequest(id=asked.id)))


async def test_research_reports_with_its_sources(served: A2AServer) -> None:
    streaming = await served.client("alice")
    question = message(
        "Why do honey bee colonies die?",
        {"skill": "research", "options": {"model": served.model("research_fast.yaml")}},
    )
    responses = await states_until_end(
        streaming.send_message(a2a.SendMessageRequest(message=question))
    )
    assert state_of(responses[-1]) == a2a.TASK_STATE_COMPLETED
    phases = [
        text_of(r.status_update.status.message.parts)
        for r in responses
        if r.WhichOneof("payload") == "status_update"
    ]
    assert len(phases) >= 3, phases  # planning, searching, writing... told as they happen
    reports = [r.artifact_update.artifact for r in responses if r.HasField("artifact_update")]
    report = next(a for a in reports if a.artifact_id == "report")
    assert report.parts[0].media_type == "text/markdown"
    assert "Varroa mites" in report.parts[0].text and "[S1]" in report.parts[0].text
    sources = data_of(report.parts)["sources"]
    assert sources and all(s["url"].startswith(served.web + "/") for s in sources)
    assert all(s["claims"] for s in sources)


async def _when(client: Client, task_id: str, ready: Any, within: float = 60) -> a2a.Task:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while loop.time() < deadline:
        task = await client.get_task(a2a.GetTaskRequest(id=task_id))
        if ready(task):
            return task
        await asyncio.sleep(0.2)
    raise AssertionError(f"task {task_id} did not get there within {within} s")
