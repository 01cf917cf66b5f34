"""An A2A context is a session: with the official a2a-sdk client, a second task in the same
context (naming the first in referenceTaskIds) continues in the same browser and knows the first
task's answer; a reference to a task of another context is refused."""

from __future__ import annotations

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
