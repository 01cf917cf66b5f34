"""Failover by takeover: a run whose replica was lost is resumed by a live one (within the retry
budget) and goes on in the same event stream; a run with secret data, or over budget, is ended
instead. A replica cut off from the store cannot write to a run another one took over."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import grpc
import psycopg
import pytest

from outrider.server.core.events.log import EventLog
from outrider.server.core.storage import Store
from outrider.v1 import (
    interaction_pb2,
    run_event_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)
from tests.store.test_watchers_see_committed_events import reasoned
from tests.support.harness import ServerProcess, eventually
from tests.support.postgres import drop_oldest_presence
from tests.support.requests import automate_request, names, read_until

SWEEPING = {
    "OUTRIDER_FAILOVER_INTERVAL": "0.5",
    "OUTRIDER_CLUSTER_SECRET": "takeover-secret-" + "t" * 24,  # cancel on any replica
}


class Cluster:
    def __init__(self, processes: list[ServerProcess]) -> None:
        self.processes = processes
        self.channels = [grpc.aio.insecure_channel(f"127.0.0.1:{p.port}") for p in processes]
        self.stubs = [run_service_pb2_grpc.RunServiceStub(c) for c in self.channels]


@pytest.fixture
async def cluster(
    start_replica: Callable[..., ServerProcess], request: pytest.FixtureRequest
) -> AsyncIterator[Cluster]:
    env = {**SWEEPING, **getattr(request, "param", {})}
    found = Cluster([start_replica(**env) for _ in range(3)])
    yield found
    for channel in found.channels:
        await channel.close()


async def start_and_watch(
    cluster: Cluster, **plan: object
) -> tuple[str, AsyncIterator[run_service_pb2.StreamRunEventsResponse]]:
    """A run on replica 0, watched on replica 1 from its first event."""
    request = automate_request(**plan)
    created = await cluster.stubs[0].CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    name = created.run.name
    return name, cluster.stubs[1].StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))


async def test_a_lost_run_is_resumed_by_a_live_replica_in_the_same_stream(
    cluster: Cluster,
) -> None:
    name, watcher = await start_and_watch(cluster, steps=2, hold=True)
    seen = await read_until(watcher, "agent:action")
    cluster.processes[0].kill()  # SIGKILL while the agent holds
    seen += await asyncio.wait_for(read_until(watcher, "run_resumed"), 60)
    resumed = seen[-1].run_resumed
    assert resumed.attempt == 1 and "lost" in resumed.reason
    seen += await read_until(watcher, "task:setup")  # the task starts again after the history
    await cluster.stubs[2].CancelRun(run_service_pb2.CancelRunRequest(name=name))
    seen += await read_until(watcher, "done")
    assert [e.sequence for e in seen] == list(range(1, len(seen) + 1))
    assert names(seen).count("done") == 1 and names(seen).count("task:setup") == 2
    run = (await cluster.stubs[2].GetRun(run_service_pb2.GetRunRequest(name=name))).run
    assert run.state == run_pb2.RUN_STATE_CANCELLED and run.last_sequence == seen[-1].sequence


@pytest.mark.parametrize("cluster", [{"OUTRIDER_FAILOVER_RESUMES": "1"}], indirect=True)
async def test_a_run_lost_twice_is_ended_when_the_budget_is_spent(
    cluster: Cluster, postgres_url: str
) -> None:
    name, watcher = await start_and_watch(cluster, steps=1, hold=True)
    seen = await read_until(watcher, "agent:action")
    cluster.processes[0].kill()
    seen += await asyncio.wait_for(read_until(watcher, "agent:action"), 60)  # resumed
    port = executor_port(postgres_url, name)  # the survivor that took it over
    executor = next(i for i, p in enumerate(cluster.processes) if p.port == port)
    cluster.processes[executor].kill()
    last = cluster.stubs[3 - executor]  # the one replica left
    if executor == 1:  # the watcher's replica died with it: resume watching on the last one
        watcher = last.StreamRunEvents(
            run_service_pb2.StreamRunEventsRequest(name=name, after_sequence=seen[-1].sequence)
        )
    seen += await asyncio.wait_for(read_until(watcher, "done"), 60)
    assert [e.sequence for e in seen] == list(range(1, len(seen) + 1))
    assert names(seen).count("run_resumed") == 1
    run = (await last.GetRun(run_service_pb2.GetRunRequest(name=name))).run
    assert run.state == run_pb2.RUN_STATE_FAILED
    assert run.outcome.error_code == "SERVER_RESTARTED"


def executor_port(url: str, name: str) -> int:
    """The gRPC port of the replica executing the run, from the store's own records."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT p.address FROM runs r JOIN replicas p ON p.owner = r.owner WHERE r.id = %s",
            (name.removeprefix("runs/"),),
        ).fetchone()
    assert row is not None
    return int(str(row[0]).rsplit(":", 1)[1])


async def test_a_lost_run_with_secret_data_is_ended_not_resumed(cluster: Cluster) -> None:
    name, watcher = await start_and_watch(cluster, steps=1, hold=True, password="hunter22")
    seen = await read_until(watcher, "agent:action")
    cluster.processes[0].kill()
    seen += await asyncio.wait_for(read_until(watcher, "done"), 60)
    assert "run_resumed" not in names(seen)
    run = (await cluster.stubs[1].GetRun(run_service_pb2.GetRunRequest(name=name))).run
    assert run.outcome.error_code == "SERVER_RESTARTED"
    assert "cannot resume" in run.outcome.error_message


def test_a_replica_cut_off_from_a_run_it_lost_cannot_write_to_it(
    two_stores: tuple[Store, Store], postgres_url: str
) -> None:
    cut_off, survivor = two_stores
    run = running_on(cut_off, "fenced")
    cut_off.append_event("fenced", run_event_pb2.RunEvent(run="runs/fenced", sequence=1))
    lose(cut_off, survivor, "fenced", postgres_url)
    assert survivor.claim_orphan("fenced") is None  # claimed once
    late = run_event_pb2.RunEvent(run="runs/fenced", sequence=2)
    cut_off.append_event("fenced", late)  # the cut-off replica's writes arrive after the claim
    run.state = run_pb2.RUN_STATE_SUCCEEDED
    cut_off.save_run(run, "fenced")
    question = interaction_pb2.Interaction(name="runs/fenced/interactions/late")
    cut_off.save_interaction(question, ("late", "fenced"))
    cut_off.flush()
    assert [e.sequence for e in survivor.events_after("fenced", 0, 10)] == [1]
    assert survivor.get_interaction("late") is None
    stored = survivor.get_run("fenced")
    assert stored is not None and stored.state == run_pb2.RUN_STATE_RUNNING
    assert cut_off.taken_over(["fenced"]) == ["fenced"]
    assert survivor.taken_over(["fenced"]) == []
    survivor.append_event("fenced", late)  # the new owner writes
    survivor.flush()
    assert [e.sequence for e in survivor.events_after("fenced", 0, 10)] == [1, 2]
    survivor.save_interaction(question, ("late", "fenced"))
    survivor.flush()
    assert survivor.get_interaction("late") is not None


async def test_watchers_of_a_replica_that_lost_its_run_go_on_with_the_new_owners_events(
    two_stores: tuple[Store, Store], postgres_url: str
) -> None:
    """A partition that healed: the old owner's agent still appends until its next sweep stops
    it. Its refused events must reach none of its watchers, who go on with the new owner's."""
    cut_off, survivor = two_stores
    log = EventLog(cut_off, buffer_limit=100)
    run = run_pb2.Run(name="runs/healed", kind=run_pb2.RUN_KIND_AUTOMATE)
    run.state = run_pb2.RUN_STATE_RUNNING
    cut_off.save_run(run, "healed")
    cut_off.flush()
    log.open("healed")
    seen: list[str] = []

    async def watch() -> None:
        async for batch in log.follow_batches("healed", 0, heartbeat_interval=0.2):
            if isinstance(batch, list):
                seen.extend(e.automate.agent_reasoned.reasoning for e in batch)

    watcher = asyncio.create_task(watch())
    log.append("healed", reasoned("old owner 1"))
    await eventually(lambda: seen == ["old owner 1"])
    drop_oldest_presence(postgres_url)
    assert survivor.claim_orphan("healed") == 1
    log.append("healed", reasoned("refused 2"))  # the old owner does not know yet
    for sequence, text in ((2, "new owner 2"), (3, "new owner 3")):
        event = run_event_pb2.RunEvent(run="runs/healed", sequence=sequence)
        event.automate.CopyFrom(reasoned(text))
        survivor.append_event("healed", event)
    run.state = run_pb2.RUN_STATE_SUCCEEDED
    survivor.save_run(run, "healed")
    survivor.flush()
    await asyncio.wait_for(watcher, 20)  # ends with the run, though this replica never closed it
    assert seen == ["old owner 1", "new owner 2", "new owner 3"]
    assert cut_off.fenced_out("healed") and not survivor.fenced_out("healed")


def test_a_replica_cut_off_from_a_run_it_lost_cannot_add_artifacts_to_it(
    two_stores: tuple[Store, Store], postgres_url: str
) -> None:
    cut_off, survivor = two_stores
    running_on(cut_off, "fenced")
    cut_off.save_artifact(("fenced", "before"), "image/jpeg", b"before")
    lose(cut_off, survivor, "fenced", postgres_url)
    cut_off.save_artifact(("fenced", "late"), "image/jpeg", b"late" * 100_000)  # after the claim
    cut_off.flush()
    assert survivor.get_artifact("fenced", "before") == ("image/jpeg", 6)
    assert survivor.get_artifact("fenced", "late") is None
    assert survivor.read_artifact(("fenced", "late"), 0, 10) == b""  # no chunk either
    assert survivor.artifact_bytes() == 6


def running_on(store: Store, run_id: str) -> run_pb2.Run:
    run = run_pb2.Run(name=f"runs/{run_id}", kind=run_pb2.RUN_KIND_AUTOMATE)
    run.state = run_pb2.RUN_STATE_RUNNING
    store.save_run(run, run_id)
    return run


def lose(cut_off: Store, survivor: Store, run_id: str, postgres_url: str) -> None:
    """`cut_off`'s writes so far are committed, then it loses the run to `survivor`."""
    cut_off.flush()
    drop_oldest_presence(postgres_url)  # as a partition does, past its keepalives
    assert survivor.claim_orphan(run_id) == 1


def test_a_dead_owners_pending_question_on_an_ended_run_can_be_closed(
    two_stores: tuple[Store, Store], postgres_url: str
) -> None:
    """A run ended just before its process died, its question still pending: the replica that
    starts next closes it (the fence lets anyone write to a dead owner's run)."""
    dead, next_one = two_stores
    run = running_on(dead, "ended")
    run.state = run_pb2.RUN_STATE_SUCCEEDED
    dead.save_run(run, "ended")
    question = interaction_pb2.Interaction(name="interactions/left", run="runs/ended")
    question.state = interaction_pb2.INTERACTION_STATE_PENDING
    dead.save_interaction(question, ("left", "ended"))
    dead.flush()
    drop_oldest_presence(postgres_url)
    question.state = interaction_pb2.INTERACTION_STATE_CANCELLED
    next_one.save_interaction(question, ("left", "ended"))
    next_one.flush()
    stored = next_one.get_interaction("left")
    assert stored is not None and stored.state == interaction_pb2.INTERACTION_STATE_CANCELLED
    assert not next_one.fenced_out("ended")
