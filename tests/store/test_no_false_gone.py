"""Issue 23, item 3: no false "gone". PostgreSQL restarts while a run waits for an approval;
every replica's presence lock goes with it. The approval, given through another replica right
after, waits for the executor to take its presence back and is accepted; the run succeeds on
the replica that was executing it (no takeover). A replica whose session was dropped alone
takes it back within a second."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import grpc
import psycopg
import pytest

from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import (
    interaction_service_pb2_grpc,
    run_event_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)
from tests.support.harness import ServerProcess, eventually
from tests.support.postgres import PostgresServer
from tests.support.requests import automate_request, names

# The default failover interval (4 s): sweeps (which took presence back before) are far apart;
# relayed calls wait up to two intervals for a presence.
CLUSTER = {"OUTRIDER_CLUSTER_SECRET": "no-false-gone-secret-" + "g" * 20}


@pytest.fixture
def restartable(tmp_path: Path) -> Iterator[tuple[PostgresServer, str]]:
    """A PostgreSQL cluster of this test's own (it is restarted) and a database on it."""
    server = PostgresServer(private=True)
    try:
        yield server, server.create_database()
    finally:
        server.close()


@pytest.fixture
def replicas(
    restartable: tuple[PostgresServer, str], tmp_path: Path
) -> Iterator[list[ServerProcess]]:
    started = []
    for index in range(2):
        replica = ServerProcess(
            tmp_path / f"r{index}", OUTRIDER_DATABASE_URL=restartable[1], **CLUSTER
        )
        started.append(replica)
        replica.start()
        replica.drain()
    yield started
    for replica in started:
        replica.close()


async def test_an_approval_given_right_after_a_database_restart_is_accepted(
    restartable: tuple[PostgresServer, str], replicas: list[ServerProcess]
) -> None:
    server, url = restartable
    executor, other = replicas
    async with (
        grpc.aio.insecure_channel(f"127.0.0.1:{executor.port}") as on_a,
        grpc.aio.insecure_channel(f"127.0.0.1:{other.port}") as on_b,
    ):
        runs_a = run_service_pb2_grpc.RunServiceStub(on_a)
        runs_b = run_service_pb2_grpc.RunServiceStub(on_b)
        answers_b = interaction_service_pb2_grpc.InteractionServiceStub(on_b)
        request = automate_request(steps=1, ask_approval=True)
        created = await runs_a.CreateRun(
            run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
        )
        name = created.run.name
        approval = await pending(answers_b, name)
        await asyncio.to_thread(server.restart)  # every presence lock and connection goes
        decided = await answers_b.DecideApproval(
            isv.DecideApprovalRequest(
                name=approval.name, decision=run_event_pb2.APPROVAL_DECISION_APPROVE
            )
        )
        assert decided.interaction.state == ip.INTERACTION_STATE_RESOLVED

        async def succeeded() -> bool:
            try:
                run = (await runs_b.GetRun(run_service_pb2.GetRunRequest(name=name))).run
            except grpc.aio.AioRpcError:  # a read while the pool reconnects
                return False
            return run.state == run_pb2.RUN_STATE_SUCCEEDED

        await eventually(succeeded, within=30)
        events = run_service_pb2.StreamRunEventsRequest(name=name)
        seen = [r.event async for r in runs_b.StreamRunEvents(events) if r.HasField("event")]
    assert "run_resumed" not in names(seen)  # executed where it started, never taken over
    approved = "approval APPROVAL_DECISION_APPROVE"
    assert any(e.automate.agent_status.message == approved for e in seen)
    assert takeovers(url, name) == 0


async def pending(
    answers: interaction_service_pb2_grpc.InteractionServiceStub, run: str
) -> ip.Interaction:
    found: list[ip.Interaction] = []

    async def listed() -> bool:
        response = await answers.ListInteractions(isv.ListInteractionsRequest(run=run))
        found[:] = response.interactions
        return bool(found)

    await eventually(listed, within=30)
    return found[0]


def takeovers(url: str, name: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT takeovers FROM runs WHERE id = %s", (name.removeprefix("runs/"),)
        ).fetchone()
    assert row is not None
    return int(row[0])
