"""Every call of outrider.client against a real server with the ScriptAgent."""

from __future__ import annotations

import asyncio
import json

from outrider.client import AsyncClient, Client, automate_params, event_name
from outrider.v1 import interaction_pb2, run_pb2
from tests.support.harness import Harness, ServerProcess, eventually
from tests.support.script_agent import ARTIFACT_BYTES


async def test_automate_yields_every_event_in_order(client: AsyncClient) -> None:
    events = [e async for e in client.automate("t", data={"steps": 2})]
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    names = [event_name(e) for e in events]
    assert names[:3] == ["task:setup", "agent:step", "agent:action"]
    assert names[-2:] == ["complete", "done"]
    assert events[-2].automate.complete.final_answer == "done"


async def test_research_yields_the_report(client: AsyncClient) -> None:
    events = [e async for e in client.research(json.dumps({"steps": 1}), mode="balanced")]
    complete = [e for e in events if event_name(e) == "complete"]
    assert complete[0].research.complete.report == "A report [1]."
    run = await client.get_run(events[0].run)
    assert run.kind == run_pb2.RUN_KIND_RESEARCH and run.state == run_pb2.RUN_STATE_SUCCEEDED


async def test_create_get_list_events_after_and_cancel(client: AsyncClient) -> None:
    run = await client.create_run(automate_params("hold", data={"steps": 2, "hold": True}))
    await eventually(lambda: _last_sequence(client, run.name, at_least=5))
    tail = client.events(run.name.removeprefix("runs/"), after=2)
    first = await anext(tail)
    assert first.sequence == 3
    listed = await client.list_runs(page_size=5)
    assert run.name in [r.name for r in listed.items]
    cancelled = await client.cancel_run(run.name, reason="enough")
    assert cancelled.name == run.name
    rest = [e async for e in tail]
    assert [e.sequence for e in rest] == list(range(4, 4 + len(rest)))
    assert event_name(rest[-1]) == "done"
    final = await client.get_run(run.name)
    assert final.state == run_pb2.RUN_STATE_CANCELLED


async def _last_sequence(client: AsyncClient, run: str, at_least: int) -> bool:
    return (await client.get_run(run)).last_sequence >= at_least


async def test_read_artifact(client: AsyncClient) -> None:
    events = [e async for e in client.automate("t", data={"steps": 1, "artifact": True})]
    artifact = next(e.artifact for e in events if e.artifact)
    assert await client.read_artifact(artifact) == ARTIFACT_BYTES


async def test_session_answers_a_form_and_an_approval(
    client: AsyncClient, harness: Harness
) -> None:
    params = automate_params("log in", data={"steps": 1, "ask_input": True, "ask_approval": True})
    answers = []
    async with client.interact(params) as session:
        async for event in session:
            if event.automate.HasField("interactive_form_data_request"):
                request = event.automate.interactive_form_data_request
                answers.append(session.answer_form(request.request_id, {"E1": "a@b.c"}))
            elif event.HasField("approval_requested"):
                answers.append(session.approve(event.approval_requested.approval_id))
    verdicts = await asyncio.gather(*answers)
    assert [v.accepted for v in verdicts] == [True, True]
    assert harness.agent.received_inputs == [{"E1": "a@b.c"}]
    run = await client.get_run(session.run)
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED


async def test_unary_answers_and_interaction_listing(client: AsyncClient) -> None:
    data = {"steps": 0, "ask_input": True, "ask_approval": True}
    run = await client.create_run(automate_params("t", data=data))
    form = await _pending(client, run.name)
    assert (
        await client.get_interaction(form.name)
    ).kind == interaction_pb2.INTERACTION_KIND_FORM_DATA
    answered = await client.submit_input(form.name, {"E1": "x@y.z"})
    assert answered.state == interaction_pb2.INTERACTION_STATE_RESOLVED
    approval = await _pending(client, run.name)
    decided = await client.decide_approval(
        approval.name.removeprefix("interactions/"), approve=False
    )
    assert decided.decision == 2  # APPROVAL_DECISION_REJECT
    events = [e async for e in client.events(run.name)]
    assert "approval APPROVAL_DECISION_REJECT" in [
        e.automate.agent_status.message for e in events if e.automate.HasField("agent_status")
    ]


async def _pending(client: AsyncClient, run: str) -> interaction_pb2.Interaction:
    found: list[interaction_pb2.Interaction] = []

    async def pending() -> bool:
        found[:] = (await client.list_interactions(run=run)).items
        return bool(found)

    await eventually(pending)
    return found[0]


def test_sync_client_streams_answers_and_reads(server_process: ServerProcess) -> None:
    with Client(f"127.0.0.1:{server_process.port}") as client:
        events = list(client.automate("t", data={"steps": 1}))
        assert event_name(events[-1]) == "done"
        assert client.get_run(events[0].run).state == run_pb2.RUN_STATE_SUCCEEDED
        assert events[0].run in [r.name for r in client.list_runs().items]
        params = automate_params("t", data={"steps": 0, "ask_input": True})
        with client.interact(params) as session:
            verdicts = []
            for event in session:
                if event.automate.HasField("interactive_form_data_request"):
                    request_id = event.automate.interactive_form_data_request.request_id
                    verdicts.append(session.answer_form(request_id, {"E1": "s@y.nc"}))
        assert verdicts[0].result(5).accepted
        replay = list(client.events(session.run, after=1))
        assert replay[0].sequence == 2
        assert "input submitted" in replay[-4].automate.agent_status.message


async def test_leaving_a_session_early_closes_its_stream_and_the_run_goes_on(
    client: AsyncClient,
) -> None:
    params = automate_params("t", data={"steps": 3, "interval": 0.02})
    async with client.interact(params) as session:
        async for _ in session:
            break
    run = await client.get_run(session.run)
    events = [e async for e in client.events(run.name)]
    assert event_name(events[-1]) == "done"
