"""Calls for a run another replica executes are relayed there: form answers, approvals and
cancels given on any replica reach the agent; the caller's identity travels in a signed relay
token; a run whose replica died is refused as UNAVAILABLE, not lost."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import pytest_asyncio

from outrider.server.core.principals import ALL_SCOPES, Principal
from outrider.server.security.relay import RELAY_HEADER, RelayedCall, RelayKey, request_bytes
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import (
    interaction_service_pb2_grpc,
    run_event_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)
from tests.security.tenants import Keys, certificate_entry, two_tenants
from tests.store.conftest import ReplicaStarter
from tests.support.harness import ServerProcess, eventually, rich_error
from tests.support.pki import Authority
from tests.support.requests import automate_request, collect, names

SECRET = "relay-test-secret-" + "x" * 24
CLUSTER = {"OUTRIDER_CLUSTER_SECRET": SECRET}
SUBMIT = "/outrider.v1.InteractionService/SubmitInput"


class Replica:
    """Stubs of one replica."""

    def __init__(self, process: ServerProcess) -> None:
        self.process = process
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{process.port}")
        self.runs = run_service_pb2_grpc.RunServiceStub(self.channel)
        self.interactions = interaction_service_pb2_grpc.InteractionServiceStub(self.channel)

    async def pending(self, run: str) -> ip.Interaction:
        """The run's pending interaction, once there is one (as this replica reads the store)."""
        found: list[ip.Interaction] = []

        async def listed() -> bool:
            response = await self.interactions.ListInteractions(
                isv.ListInteractionsRequest(run=run)
            )
            found[:] = response.interactions
            return bool(found)

        await eventually(listed)
        return found[0]

    async def get(self, run: str) -> run_pb2.Run:
        return (await self.runs.GetRun(run_service_pb2.GetRunRequest(name=run))).run


# the tests on `cluster` share its three replicas (each its own runs); their channels live on
# the module's event loop
ON_THE_MODULE_CLUSTER = pytest.mark.asyncio(loop_scope="module")


@contextlib.asynccontextmanager
async def three_replicas(start: ReplicaStarter) -> AsyncIterator[list[Replica]]:
    replicas = [Replica(start(**CLUSTER)) for _ in range(3)]
    try:
        yield replicas
    finally:
        for replica in replicas:
            await replica.channel.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def cluster(start_module_replica: ReplicaStarter) -> AsyncIterator[list[Replica]]:
    async with three_replicas(start_module_replica) as replicas:
        yield replicas


@pytest.fixture
async def own_cluster(start_replica: ReplicaStarter) -> AsyncIterator[list[Replica]]:
    """Three replicas of the test's own, for a test that kills one."""
    async with three_replicas(start_replica) as replicas:
        yield replicas


async def create(replica: Replica, **plan: Any) -> str:
    request = automate_request(**plan)
    created = await replica.runs.CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    return created.run.name


def email(interaction: ip.Interaction, value: str) -> isv.SubmitInputRequest:
    return isv.SubmitInputRequest(
        name=interaction.name, fields=[ip.FieldValue(ref="E1", value=value)]
    )


def statuses(events: list[run_event_pb2.RunEvent]) -> list[str]:
    return [
        e.automate.agent_status.message
        for e in events
        if e.HasField("automate") and e.automate.HasField("agent_status")
    ]


@ON_THE_MODULE_CLUSTER
async def test_a_form_answer_given_on_c_reaches_the_agent_on_a(cluster: list[Replica]) -> None:
    a, b, c = cluster
    run = await create(a, steps=1, ask_input=True)
    watcher = asyncio.create_task(
        collect(b.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=run)))
    )
    pending = await c.pending(run)
    with pytest.raises(grpc.aio.AioRpcError) as refused:  # validated by the executor, said by C
        await c.interactions.SubmitInput(
            isv.SubmitInputRequest(name=pending.name, fields=[ip.FieldValue(ref="E7", value="x")])
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert rich_error(refused.value).violations  # the executor's field violations, relayed
    answered = await c.interactions.SubmitInput(email(pending, "me@example.com"))
    assert answered.interaction.state == ip.INTERACTION_STATE_RESOLVED
    events = await asyncio.wait_for(watcher, 30)
    assert "input submitted (RESOLUTION_SOURCE_CALLER)" in statuses(events)
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    assert names(events)[-2:] == ["complete", "done"]
    assert (await c.get(run)).state == run_pb2.RUN_STATE_SUCCEEDED


@ON_THE_MODULE_CLUSTER
async def test_an_approval_on_c_and_a_cancel_on_b_reach_the_run_on_a(
    cluster: list[Replica],
) -> None:
    a, b, c = cluster
    run = await create(a, steps=1, ask_approval=True, hold=True)
    pending = await c.pending(run)
    decided = await c.interactions.DecideApproval(
        isv.DecideApprovalRequest(
            name=pending.name, decision=run_event_pb2.APPROVAL_DECISION_APPROVE
        )
    )
    assert decided.interaction.state == ip.INTERACTION_STATE_RESOLVED
    cancelled = await b.runs.CancelRun(run_service_pb2.CancelRunRequest(name=run, reason="enough"))
    assert cancelled.run.state == run_pb2.RUN_STATE_CANCELLED  # B waited for A to end it
    assert cancelled.run.cancelled_by == "anonymous"
    events = await collect(c.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=run)))
    assert "approval APPROVAL_DECISION_APPROVE" in statuses(events)
    assert names(events)[-2:] == ["complete", "done"]
    assert "enough" in str(events[-2].automate.complete.error)


@ON_THE_MODULE_CLUSTER
async def test_answers_and_cancel_on_an_interact_stream_attached_on_b(
    cluster: list[Replica],
) -> None:
    a, b, _ = cluster
    run = await create(a, steps=1, ask_input=True, hold=True)
    pending = await b.pending(run)
    outgoing: asyncio.Queue[isv.InteractRequest | None] = asyncio.Queue()

    async def requests() -> AsyncIterator[isv.InteractRequest]:
        while (request := await outgoing.get()) is not None:
            yield request

    stream = b.interactions.Interact(requests())
    await outgoing.put(isv.InteractRequest(attach=isv.InteractAttach(run=run)))
    answer = isv.FormDataAnswer(
        request_id=pending.name, fields=[ip.FieldValue(ref="E1", value="me@example.com")]
    )
    await outgoing.put(isv.InteractRequest(form_data=answer))
    seen: list[str] = []
    async for response in stream:
        if response.HasField("answer_result"):
            assert response.answer_result.accepted, response.answer_result.message
            await outgoing.put(isv.InteractRequest(cancel=isv.InteractCancel(reason="stop here")))
        elif response.HasField("event"):
            seen.append(response.event.automate.agent_status.message)
    await outgoing.put(None)
    assert "input submitted (RESOLUTION_SOURCE_CALLER)" in seen
    assert (await a.get(run)).state == run_pb2.RUN_STATE_CANCELLED


async def test_rest_answers_on_b_are_relayed(
    start_replica: Callable[..., ServerProcess],
) -> None:
    a = Replica(start_replica(**CLUSTER))
    b_process = ServerProcess(a.process.data_dir.parent / "rest-b", rest=True, **a.process.env)
    b_process.start()
    try:
        run = await create(a, steps=1, ask_input=True)
        pending = await a.pending(run)
        interaction_id = pending.name.removeprefix("interactions/")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{b_process.rest_port}") as http:
            answered = await http.post(
                f"/v1/automate/{interaction_id}/input",
                json={"fields": [{"ref": "E1", "value": "me@example.com"}]},
            )
        assert answered.status_code == 202, answered.text

        async def succeeded() -> bool:
            return (await a.get(run)).state == run_pb2.RUN_STATE_SUCCEEDED

        await eventually(succeeded)
    finally:
        b_process.close()
        await a.channel.close()


async def test_tenants_stay_apart_across_replicas(
    start_replica: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    keys = two_tenants(tmp_path)
    env = {**CLUSTER, "OUTRIDER_KEYS_FILE": str(keys.file)}
    a, b = (Replica(start_replica(**env)) for _ in range(2))
    try:
        request = automate_request(steps=1, ask_input=True, hold=True)
        created = await a.runs.CreateRun(
            run_service_pb2.CreateRunRequest(automate=request.params, options=request.options),
            metadata=keys.bearer("alpha-1"),
        )
        run = created.run.name
        listed: list[ip.Interaction] = []

        async def pending() -> bool:
            response = await b.interactions.ListInteractions(
                isv.ListInteractionsRequest(run=run), metadata=keys.bearer("alpha-2")
            )
            listed[:] = response.interactions
            return bool(listed)

        await eventually(pending)
        with pytest.raises(grpc.aio.AioRpcError) as hidden:  # beta never learns it exists
            await b.interactions.SubmitInput(
                email(listed[0], "me@example.com"), metadata=keys.bearer("beta-1")
            )
        assert hidden.value.code() == grpc.StatusCode.NOT_FOUND
        with pytest.raises(grpc.aio.AioRpcError) as hidden:
            await b.runs.CancelRun(
                run_service_pb2.CancelRunRequest(name=run), metadata=keys.bearer("beta-1")
            )
        assert hidden.value.code() == grpc.StatusCode.NOT_FOUND
        cancelled = await b.runs.CancelRun(
            run_service_pb2.CancelRunRequest(name=run), metadata=keys.bearer("alpha-2")
        )
        assert cancelled.run.cancelled_by == "alpha-2"  # the relayed caller, not the replica
    finally:
        for replica in (a, b):
            await replica.channel.close()


async def test_relay_tokens_are_checked_by_the_receiving_replica(
    start_replica: Callable[..., ServerProcess],
) -> None:
    keyed = Replica(start_replica(**CLUSTER))
    unkeyed = Replica(start_replica())
    try:
        run = await create(keyed, steps=1, ask_input=True, hold=True)
        pending = await keyed.pending(run)
        answer = email(pending, "me@example.com")
        anyone = Principal("mallory", "default", ALL_SCOPES)

        def token(key: str = SECRET, to: Replica = keyed, now: float | None = None) -> str:
            call = RelayedCall(SUBMIT, request_bytes(answer), f"127.0.0.1:{to.process.port}")
            return RelayKey(key).sign(anyone, call, now=now)

        other = email(pending, "other@example.com")
        cases = (
            (keyed, answer, token("another-secret-" + "y" * 24), "RELAY_TOKEN_INVALID"),
            (keyed, answer, token(now=1.0), "RELAY_TOKEN_EXPIRED"),
            (keyed, other, token(), "RELAY_TOKEN_MISDIRECTED"),  # made for another request
            (keyed, answer, token(to=unkeyed), "RELAY_TOKEN_MISDIRECTED"),  # another replica
            (unkeyed, answer, token(to=unkeyed), "RELAY_NOT_CONFIGURED"),
        )
        for replica, request, made, reason in cases:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await replica.interactions.SubmitInput(request, metadata=((RELAY_HEADER, made),))
            assert rich_error(refused.value).reason == reason
        assert (await keyed.get(run)).state == run_pb2.RUN_STATE_INPUT_REQUIRED
        with pytest.raises(grpc.aio.AioRpcError) as refused:  # a token made for SubmitInput
            await keyed.runs.CancelRun(
                run_service_pb2.CancelRunRequest(name=run), metadata=((RELAY_HEADER, token()),)
            )
        assert rich_error(refused.value).reason == "RELAY_TOKEN_MISDIRECTED"
        good = token()
        accepted = await keyed.interactions.SubmitInput(answer, metadata=((RELAY_HEADER, good),))
        assert accepted.interaction.resolved_by == "mallory"  # served as the relayed caller
        with pytest.raises(grpc.aio.AioRpcError) as refused:  # the same token, once more
            await keyed.interactions.SubmitInput(answer, metadata=((RELAY_HEADER, good),))
        assert rich_error(refused.value).reason == "RELAY_TOKEN_REPLAYED"
    finally:
        for replica in (keyed, unkeyed):
            await replica.channel.close()


async def test_an_answer_for_a_run_whose_replica_died_is_refused_as_unavailable(
    own_cluster: list[Replica],
) -> None:
    a, b, _ = own_cluster
    run = await create(a, steps=1, ask_input=True)
    pending = await b.pending(run)
    a.process.kill()
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await b.interactions.SubmitInput(email(pending, "me@example.com"))
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    assert rich_error(refused.value).reason in ("EXECUTOR_LOST", "RELAY_FAILED")


async def test_relays_under_mutual_tls(
    start_replica: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    """Every replica requires client certificates: B relays to A with its own certificate."""
    ca = Authority(tmp_path / "pki", "cluster")
    replica, caller = ca.replica(), ca.client("alice")
    keys = Keys(tmp_path / "keys.toml")
    certificate_entry(keys.file, "alice", "default", "alice")
    env = {
        **CLUSTER,
        "OUTRIDER_TLS_CERT": str(replica.cert),
        "OUTRIDER_TLS_KEY": str(replica.key),
        "OUTRIDER_TLS_CLIENT_CA": str(ca.cert_file),
        "OUTRIDER_RELAY_CA": str(ca.cert_file),
        "OUTRIDER_KEYS_FILE": str(keys.file),
    }
    a, b = start_replica(**env), start_replica(**env)
    credentials = grpc.ssl_channel_credentials(
        root_certificates=ca.cert_file.read_bytes(),
        private_key=caller.key.read_bytes(),
        certificate_chain=caller.cert.read_bytes(),
    )
    channels = [grpc.aio.secure_channel(f"localhost:{r.port}", credentials) for r in (a, b)]
    try:
        on_a = run_service_pb2_grpc.RunServiceStub(channels[0])
        on_b = interaction_service_pb2_grpc.InteractionServiceStub(channels[1])
        request = automate_request(steps=1, ask_input=True)
        created = await on_a.CreateRun(
            run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
        )
        run = created.run.name
        found: list[ip.Interaction] = []

        async def pending() -> bool:
            listed = await on_b.ListInteractions(isv.ListInteractionsRequest(run=run))
            found[:] = listed.interactions
            return bool(found)

        await eventually(pending)
        answered = await on_b.SubmitInput(email(found[0], "me@example.com"))
        assert answered.interaction.state == ip.INTERACTION_STATE_RESOLVED
        assert answered.interaction.resolved_by == "alice"
    finally:
        for channel in channels:
            await channel.close()


async def test_an_answer_link_used_on_c_answers_the_run_executed_by_a(
    start_replica: Callable[..., ServerProcess],
) -> None:
    """The link page of a replica that does not execute the run relays the answer there, as
    an API answer is relayed; the link one replica issues is good on every replica, and so is a
    page token, with no OUTRIDER_PAGE_TOKEN_SECRET set and a data directory each: their signing
    key is the database's."""
    a = Replica(start_replica(rest=True, **CLUSTER))
    c = Replica(start_replica(rest=True, **CLUSTER))
    await create(a, steps=1)
    run = await create(a, steps=1, ask_input=True)
    first = await a.runs.ListRuns(run_service_pb2.ListRunsRequest(page_size=1))
    assert first.next_page_token
    rest = await c.runs.ListRuns(
        run_service_pb2.ListRunsRequest(page_size=1, page_token=first.next_page_token)
    )
    assert len(rest.runs) == 1 and rest.runs[0].name != first.runs[0].name
    pending = await a.pending(run)  # the link a issues, used on c
    assert pending.answer_url.startswith("/console/answer/")
    origin = f"http://127.0.0.1:{c.process.rest_port}"
    async with httpx.AsyncClient(base_url=origin, timeout=30) as http:
        assert (await http.get(pending.answer_url)).status_code == 200
        answered = await http.post(
            pending.answer_url, data={"field:E1": "me@example.com"}, headers={"Origin": origin}
        )
    assert answered.status_code == 200, answered.text
    assert "Answered by answer-link" in answered.text

    async def succeeded() -> bool:
        return (await c.get(run)).state == run_pb2.RUN_STATE_SUCCEEDED

    await eventually(succeeded)
    events = await collect(a.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=run)))
    assert "input submitted (RESOLUTION_SOURCE_CALLER)" in statuses(events)
    for replica in (a, c):
        await replica.channel.close()
