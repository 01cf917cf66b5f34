"""The isolation drill: two tenants with two keys each. Every read and write call of one tenant
against the other tenant's run, interaction and artifact, over gRPC and REST, is NOT_FOUND, and
nothing about the run changes. Then the owning tenant (with its other key) still can."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import struct_pb2

from outrider.server.core.events.names import event_name
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import params_pb2, run_event_pb2, run_pb2
from outrider.v1 import run_service_pb2 as rs
from tests.security.tenants import Edges, Keys, open_edges, two_tenants
from tests.support.harness import eventually, rich_error
from tests.support.script_agent import ARTIFACT_BYTES


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    return two_tenants(tmp_path)


@pytest.fixture
async def edges(tmp_path: Path, keys: Keys) -> AsyncIterator[Edges]:
    async for opened in open_edges(tmp_path / "data", keys_file=keys.file, max_concurrent_runs=8):
        yield opened


def create(**plan: Any) -> rs.CreateRunRequest:
    data = struct_pb2.Struct()
    data.update(plan)
    return rs.CreateRunRequest(automate=params_pb2.AutomateParams(task="drill", data=data))


async def pending(edges: Edges, keys: Keys, who: str) -> list[ip.Interaction]:
    listed = await edges.interactions.ListInteractions(
        isv.ListInteractionsRequest(), metadata=keys.bearer(who)
    )
    return list(listed.interactions)


async def artifact_of(edges: Edges, keys: Keys, run: str) -> str:
    stream = edges.runs.StreamRunEvents(
        rs.StreamRunEventsRequest(name=run), metadata=keys.bearer("alpha-1")
    )
    async for response in stream:
        if response.event.artifact:
            stream.cancel()
            return response.event.artifact
    raise AssertionError("no artifact event")


async def not_found(call: Awaitable[Any]) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND, caught.value.details()
    assert rich_error(caught.value).reason == "NOT_FOUND"


async def drain(stream: Any) -> None:
    async for _ in stream:
        pass


async def test_another_tenant_finds_nothing_and_changes_nothing(edges: Edges, keys: Keys) -> None:
    own = keys.bearer("alpha-1")
    form_run = (
        await edges.runs.CreateRun(create(artifact=True, ask_input=True, hold=True), metadata=own)
    ).run
    approval_run = (
        await edges.runs.CreateRun(
            create(ask_approval=True, hold=True), metadata=keys.bearer("alpha-2")
        )
    ).run

    async def both_pending() -> bool:
        return len(await pending(edges, keys, "alpha-1")) == 2

    await eventually(both_pending)
    questions = {i.kind: i for i in await pending(edges, keys, "alpha-2")}
    form = questions[ip.INTERACTION_KIND_FORM_DATA].name
    approval = questions[ip.INTERACTION_KIND_APPROVAL].name
    artifact = await artifact_of(edges, keys, form_run.name)
    before = await snapshot(edges, keys, [form_run.name, approval_run.name])

    for intruder in ("beta-1", "beta-2"):
        await grpc_attempts(
            edges, keys, intruder, [form_run.name, approval_run.name], form, approval, artifact
        )
        await rest_attempts(
            edges, keys, intruder, [form_run.name, approval_run.name], form, approval, artifact
        )

    assert await snapshot(edges, keys, [form_run.name, approval_run.name]) == before
    await the_owner_still_can(edges, keys, form, approval_run.name)
    async with httpx.AsyncClient(base_url=edges.origin, headers=keys.header("alpha-2")) as http:
        own = await http.get(f"/v1/{artifact}")  # the same tenant's other key reads it
    assert own.status_code == 200 and own.content == ARTIFACT_BYTES
    assert own.headers["content-type"] == "image/png"


async def grpc_attempts(
    edges: Edges, keys: Keys, who: str, runs: list[str], form: str, approval: str, artifact: str
) -> None:
    md = keys.bearer(who)
    for run in runs:
        await not_found(edges.runs.GetRun(rs.GetRunRequest(name=run), metadata=md))
        await not_found(
            edges.runs.CancelRun(rs.CancelRunRequest(name=run, reason="x"), metadata=md)
        )
        await not_found(edges.runs.DeleteRun(rs.DeleteRunRequest(name=run), metadata=md))
        for after in (0, 2):  # reading from the start and resuming
            request = rs.StreamRunEventsRequest(name=run, after_sequence=after)
            await not_found(drain(edges.runs.StreamRunEvents(request, metadata=md)))
        attach = isv.InteractRequest(attach=isv.InteractAttach(run=run))
        await not_found(drain(edges.interactions.Interact(iter([attach]), metadata=md)))
    await not_found(
        edges.runs.ReadArtifact(rs.ReadArtifactRequest(name=artifact), metadata=md).read()
    )
    for name in (form, approval):
        await not_found(
            edges.interactions.GetInteraction(isv.GetInteractionRequest(name=name), metadata=md)
        )
        submit = isv.SubmitInputRequest(name=name, fields=[ip.FieldValue(ref="E1", value="a@b.c")])
        await not_found(edges.interactions.SubmitInput(submit, metadata=md))
        decide = isv.DecideApprovalRequest(
            name=name, decision=run_event_pb2.APPROVAL_DECISION_APPROVE
        )
        await not_found(edges.interactions.DecideApproval(decide, metadata=md))
    listed = await edges.runs.ListRuns(rs.ListRunsRequest(), metadata=md)
    assert not {r.name for r in listed.runs} & set(runs)
    for run in ("", *runs):
        request = isv.ListInteractionsRequest(run=run)
        found = await edges.interactions.ListInteractions(request, metadata=md)
        assert not found.interactions
    await answers_on_own_stream_are_refused(edges, md, form, approval)


async def answers_on_own_stream_are_refused(
    edges: Edges, md: tuple[tuple[str, str], ...], form: str, approval: str
) -> None:
    """On an Interact stream of its own run, answers to the other tenant's questions are
    refused as NOT_FOUND."""
    start = isv.InteractRequest(start=isv.InteractStart(automate=create(hold=True).automate))
    form_id, approval_id = (
        form.removeprefix("interactions/"),
        approval.removeprefix("interactions/"),
    )
    messages = [
        start,
        isv.InteractRequest(
            form_data=isv.FormDataAnswer(
                request_id=form_id, fields=[ip.FieldValue(ref="E1", value="x@y.z")]
            )
        ),
        isv.InteractRequest(
            approval=isv.ApprovalAnswer(
                approval_id=approval_id, decision=run_event_pb2.APPROVAL_DECISION_APPROVE
            )
        ),
        isv.InteractRequest(cancel=isv.InteractCancel(reason="done probing")),
    ]
    results = []
    async for response in edges.interactions.Interact(iter(messages), metadata=md):
        if response.HasField("answer_result"):
            results.append(response.answer_result)
    assert [(r.accepted, r.reason) for r in results] == [(False, "NOT_FOUND")] * 2


async def rest_attempts(
    edges: Edges, keys: Keys, who: str, runs: list[str], form: str, approval: str, artifact: str
) -> None:
    async with httpx.AsyncClient(base_url=edges.origin, headers=keys.header(who)) as http:
        assert_404(await http.get(f"/v1/{artifact}"))
        for run in runs:
            run_id = run.removeprefix("runs/")
            for method, path, extra in (
                ("GET", f"/v1/runs/{run_id}", {}),
                ("POST", f"/v1/runs/{run_id}/cancel", {"json": {"reason": "x"}}),
                ("DELETE", f"/v1/runs/{run_id}", {}),
                ("GET", f"/v1/runs/{run_id}/events", {}),
                ("GET", f"/v1/runs/{run_id}/events", {"headers": {"Last-Event-ID": "2"}}),
            ):
                assert_404(await http.request(method, path, **extra))
        for name in (form, approval):
            interaction_id = name.removeprefix("interactions/")
            answer = {"fields": [{"ref": "E1", "value": "a@b.c"}]}
            assert_404(await http.post(f"/v1/automate/{interaction_id}/input", json=answer))
            assert_404(
                await http.post(
                    f"/v1/automate/{interaction_id}/approval", json={"decision": "approve"}
                )
            )
            assert_404(await http.get(f"/v1/interactions/{interaction_id}"))
        listed = (await http.get("/v1/runs")).json()["runs"]
        assert not {r["name"] for r in listed} & set(runs)
        for run in runs:
            found = await http.get("/v1/interactions", params={"run": run.removeprefix("runs/")})
            assert found.json()["interactions"] == []


def assert_404(response: httpx.Response) -> None:
    assert response.status_code == 404, (response.request.url, response.text)
    assert response.json()["error"]["reason"] == "NOT_FOUND"


async def snapshot(edges: Edges, keys: Keys, runs: list[str]) -> list[Any]:
    """What an admin sees of the runs and their interactions."""
    md = keys.bearer("root")
    seen: list[Any] = []
    for run in runs:
        got = (await edges.runs.GetRun(rs.GetRunRequest(name=run), metadata=md)).run
        listed = await edges.interactions.ListInteractions(
            isv.ListInteractionsRequest(run=run), metadata=md
        )
        seen.append((got.state, got.last_sequence, got.cancelled_by, got.tenant, got.created_by))
        seen.append([(i.name, i.state, i.resolved_by) for i in listed.interactions])
    return seen


async def the_owner_still_can(edges: Edges, keys: Keys, form: str, approval_run: str) -> None:
    """The other key of the same tenant answers; the run records who answered and who cancelled."""
    submit = isv.SubmitInputRequest(name=form, fields=[ip.FieldValue(ref="E1", value="a@b.c")])
    answered = await edges.interactions.SubmitInput(submit, metadata=keys.bearer("alpha-2"))
    assert answered.interaction.resolved_by == "alpha-2"
    async with httpx.AsyncClient(base_url=edges.origin, headers=keys.header("alpha-1")) as http:
        run_id = approval_run.removeprefix("runs/")
        cancelled = (
            await http.post(f"/v1/runs/{run_id}/cancel", json={"reason": "drill over"})
        ).json()
    assert cancelled["cancelledBy"] == "alpha-1" and cancelled["createdBy"] == "alpha-2"
    assert cancelled["tenant"] == "alpha"
    events = [
        r.event
        async for r in edges.runs.StreamRunEvents(
            rs.StreamRunEventsRequest(name=approval_run), metadata=keys.bearer("root")
        )
        if r.HasField("event")
    ]
    complete = next(e for e in events if event_name(e) == "complete")
    assert "cancelled by alpha-1: drill over" in complete.automate.complete.error.message
    resolved = next(e for e in events if e.HasField("approval_resolved"))
    assert resolved.approval_resolved.resolved_by == ""  # the run ended; nobody answered it
    everyone = await edges.runs.ListRuns(rs.ListRunsRequest(), metadata=keys.bearer("root"))
    assert {r.tenant for r in everyone.runs} == {"alpha", "beta"}
    assert run_pb2.RUN_STATE_CANCELLED in {r.state for r in everyone.runs}
