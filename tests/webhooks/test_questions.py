"""A question reaches people where they are: an interactive run's question arrives at a receiver
with its one-time answer link (only at endpoints allowed to carry links), a plain HTTP client
answers through the link, the resolution is notified, and the run succeeds."""

from __future__ import annotations

from pathlib import Path

import grpc
import httpx

from tests.support.harness import ServerProcess, eventually
from tests.support.ports import free_port
from tests.webhooks.receivers import Receiver
from tests.webhooks.support import SUCCEEDED, Calls, webhook_env


async def test_a_question_is_answered_through_the_link_its_webhook_carried(tmp_path: Path) -> None:
    trusted, plain = Receiver().start(), Receiver().start()  # their ports first: not the REST's
    rest_port = free_port()
    public = f"http://127.0.0.1:{rest_port}"
    server = ServerProcess(
        tmp_path,
        True,
        False,
        OUTRIDER_REST_PORT=str(rest_port),
        OUTRIDER_PUBLIC_URL=public,
        **webhook_env(),
    )
    try:
        server.start()
        server.drain()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            calls = Calls(channel)
            types = ("question.waiting", "question.resolved", "run.ended")
            await calls.endpoint(trusted.url, *types, links=True)
            await calls.endpoint(plain.url, "question.waiting")
            run_id = await calls.run(ask_approval=True)
            await eventually(lambda: trusted.ids("question.waiting") != set(), within=20)
            (asked,) = trusted.of_type("question.waiting")
            assert asked.data["run"] == f"runs/{run_id}" and asked.data["kind"] == "approval"
            assert asked.data["text"].startswith("Approve submit")
            link = asked.data["answer_url"]
            assert link.startswith(f"{public}/console/answer/")
            await eventually(lambda: plain.ids("question.waiting") != set(), within=20)
            assert "answer_url" not in plain.deliveries[0].data
            async with httpx.AsyncClient() as http:  # a plain client: no key, no browser
                page = await http.get(link)
                assert page.status_code == 200 and "approve" in page.text.lower()
                answered = await http.post(link, data={"decision": "approve-once"})
                assert answered.status_code == 200
                again = await http.post(link, data={"decision": "approve-once"})
                assert again.status_code == 410  # one time: the question is answered
            await eventually(lambda: trusted.ids("run.ended") != set(), within=20)
            assert await calls.state(run_id) == SUCCEEDED
            (resolved,) = trusted.of_type("question.resolved")
            assert resolved.data["state"] == "resolved"
            assert resolved.data["interaction"] == asked.data["interaction"]
            assert resolved.data["resolved_by"] == "answer-link"
            assert trusted.of_type("run.ended")[0].data["state"] == "succeeded"
    finally:
        server.close()
        trusted.stop()
        plain.stop()
