"""An A2A context is a session: with the official a2a-sdk client, a second task in the same
context (naming the first in referenceTaskIds) continues in the same browser and knows the first
task's answer; a reference to a task of another context is refused."""

from __future__ import annotations

import asyncio

import pytest
from a2a.client import Client
from a2a.types import a2a_pb2 as a2a
from a2a.utils.errors import InvalidParamsError

from outrider.client import AsyncClient
from tests.a2a.support import A2AServer, message

pytestmark = pytest.mark.asyncio(loop_scope="module")
SCENARIO = "mcp/session_follow_up.yaml"  # the second run expects the first's answer and page


async def send(client: Client, sent: a2a.Message) -> a2a.Task:
    async for response in client.send_message(a2a.SendMessageRequest(message=sent)):
        return response.task
    raise AssertionError("no response")


async def test_a_follow_up_task_in_the_same_context_continues_in_the_same_browser(
    served: A2AServer,
) -> None:
    client = await served.client("alice", streaming=False)
    model = {"skill": "browse", "options": {"model": served.model(SCENARIO)}}
    first = await send(
        client,
        message("What does the Red Mug cost?", {"url": f"{served.sites}/shop/index.html"} | model),
    )
    assert first.status.state == a2a.TASK_STATE_COMPLETED, first.status
    follow_up = message(
        "Say again what it costs.",
        model,
        context_id=first.context_id,
        reference_task_ids=[first.id],
    )
    second = await send(client, follow_up)
    assert second.status.state == a2a.TASK_STATE_COMPLETED, second.status
    assert second.context_id == first.context_id
    answers = [p.text for a in second.artifacts for p in a.parts if p.text]
    assert "Again: the Red Mug costs $8.25." in answers
    key = served.keys.keys["alice"]
    async with AsyncClient(f"127.0.0.1:{served.server.port}", api_key=key) as grpc_client:
        runs = [await grpc_client.get_run(task.id) for task in (first, second)]
        assert runs[0].options.session and runs[0].options.session == runs[1].options.session
        session = await grpc_client.sessions.get(runs[0].options.session)
        assert session.labels["a2a.context_id"] == first.context_id and session.run_count == 2

    elsewhere = message(
        "Say again what it costs.",
        model,
        context_id="another-context",
        reference_task_ids=[first.id],
    )
    with pytest.raises(InvalidParamsError) as refused:
        await send(client, elsewhere)
    assert "another context" in str(refused.value)


async def test_tasks_sent_at_once_in_a_new_context_share_one_session_and_an_ended_one_is_followed(
    served: A2AServer,
) -> None:
    """The first tasks of a context, sent together, open one session (not one each); once it
    ended, the context's next task opens the next session."""
    client = await served.client("alice", streaming=False)
    model = {"skill": "browse", "options": {"model": served.model(SCENARIO)}}
    page = {"url": f"{served.sites}/shop/index.html"}

    async def first_task() -> a2a.Task | Exception:
        sent = message("What does the Red Mug cost?", page | model, context_id="burst-context")
        try:
            return await send(client, sent)
        except Exception as error:  # a busy session's refusal is an answer here
            return error

    answers = await asyncio.gather(*(first_task() for _ in range(3)))
    tasks = [a for a in answers if isinstance(a, a2a.Task)]
    assert tasks and all(t.status.state == a2a.TASK_STATE_COMPLETED for t in tasks), answers
    refused = [str(a) for a in answers if not isinstance(a, a2a.Task)]
    assert all("is busy" in why for why in refused), refused  # one run at a time, none lost
    key = served.keys.keys["alice"]
    async with AsyncClient(f"127.0.0.1:{served.server.port}", api_key=key) as grpc_client:
        listed, _ = await grpc_client.sessions.list(page_size=100)
        burst = [s for s in listed if s.labels.get("a2a.context_id") == "burst-context"]
        assert len(burst) == 1, [s.name for s in burst]
        await grpc_client.sessions.end(burst[0].name)
        again = await send(
            client, message("What does the Red Mug cost?", page | model, context_id="burst-context")
        )
        assert again.status.state == a2a.TASK_STATE_COMPLETED, again.status
        run = await grpc_client.get_run(again.id)
        assert run.options.session and run.options.session != burst[0].name
        listed, _ = await grpc_client.sessions.list(page_size=100)
        burst = [s for s in listed if s.labels.get("a2a.context_id") == "burst-context"]
        assert len(burst) == 2
        await grpc_client.sessions.end(run.options.session)
