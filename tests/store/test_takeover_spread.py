"""Issue 23, item 4: takeovers spread by capacity. Fourteen runs of a SIGKILLed replica are
taken over by three live replicas within one run of even, none past its slots plus queue; the
spread itself, as each replica computes its part, with uneven loads and full replicas."""

from __future__ import annotations

import collections
from collections.abc import Callable

import grpc
import psycopg

from outrider.server.core.cluster.claim_share import share_of
from outrider.server.core.storage import ACTIVE_STATES, WorkerLoad
from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.conftest import HarnessFactory
from tests.support.harness import ServerProcess, eventually
from tests.support.requests import automate_request

RUNS = 14


def parts(orphans: int, loads: list[tuple[int, int]], rooms: list[int] | None = None) -> list[int]:
    """Each replica's share as it computes it itself (loads: active runs and capacity)."""
    rooms = rooms or [1 << 30] * len(loads)
    return [
        share_of(
            orphans,
            [WorkerLoad(i == me, active, capacity) for i, (active, capacity) in enumerate(loads)],
            rooms[me],
        )
        for me in range(len(loads))
    ]


def test_the_parts_add_up_to_an_even_spread_least_loaded_first() -> None:
    assert parts(14, [(0, 0), (0, 0), (0, 0)]) == [5, 5, 4]
    assert parts(14, [(6, 0), (0, 0), (2, 0)]) == [2, 7, 5]  # 8, 7 and 7 runs after


def test_a_replica_never_takes_past_its_room_and_the_rest_wait() -> None:
    # capacities 4, 10 and 10 with 3, 0 and 9 active: rooms 1, 10 and 1
    assert parts(14, [(3, 4), (0, 10), (9, 10)]) == [1, 10, 1]
    # one that refuses new runs (shutting down): the other cannot know; what it leaves waits
    # PATIENCE more sweeps, then the other claims it with its room
    assert parts(3, [(0, 0), (0, 0)], rooms=[0, 5]) == [0, 1]


def test_a_replica_that_others_did_not_claim_after_looks_later_is_still_sure_of_its_part() -> None:
    # what one replica left after the first claimed its part: the second sees the new loads
    first = parts(14, [(0, 0), (0, 0), (0, 0)])[0]
    then = parts(14 - first, [(first, 0), (0, 0), (0, 0)])
    assert [first, then[1], then[2]] == [5, 5, 4]


async def test_fourteen_lost_runs_spread_over_three_replicas(
    start_replica: Callable[..., ServerProcess], postgres_url: str
) -> None:
    sweeping = {
        # a second: a replica the machine's load holds back for a few sweeps of the others
        # (PATIENCE) does not have its part claimed by them
        "OUTRIDER_FAILOVER_INTERVAL": "1",
        "OUTRIDER_MAX_CONCURRENT_RUNS": "2",  # small slots: most resumed runs wait in line
        "OUTRIDER_MAX_QUEUED_RUNS": "8",
    }
    lost = start_replica(OUTRIDER_MAX_CONCURRENT_RUNS=str(RUNS))  # sweeps off: it only dies
    survivors = [start_replica(**sweeping) for _ in range(3)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{lost.port}") as channel:
        stub = run_service_pb2_grpc.RunServiceStub(channel)
        for _ in range(RUNS):
            request = automate_request(steps=1, hold=True)
            await stub.CreateRun(
                run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
            )
    lost.kill()

    def spread() -> list[int]:
        counts = owners(postgres_url)
        return sorted(counts.get(key, 0) for key in keys(postgres_url, survivors))

    await eventually(lambda: sum(spread()) == RUNS, within=60)
    final = spread()  # final: claims take only runs whose owner is gone
    assert sum(final) == RUNS and max(final) - min(final) <= 1, final


def owners(url: str) -> dict[int, int]:
    """Active runs per owner key."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT owner, count(*) FROM runs WHERE state = ANY(%s) GROUP BY owner",
            (list(ACTIVE_STATES),),
        ).fetchall()
    return collections.Counter({int(owner): int(count) for owner, count in rows if owner})


def keys(url: str, replicas: list[ServerProcess]) -> list[int]:
    """The presence keys of these replicas, by the address each announced."""
    ports = {replica.port for replica in replicas}
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT owner, address FROM replicas").fetchall()
    return [int(owner) for owner, address in rows if int(address.rsplit(":", 1)[1]) in ports]


async def test_five_lost_runs_are_claimed_in_one_sweep_of_each_of_two_survivors(
    start_replica: Callable[..., ServerProcess],
    make_harness: HarnessFactory,
    postgres_url: str,
) -> None:
    """Issue 34, item 5: B (one run of its own) and C have room for five runs between them
    (three slots each, no queue). Each claims its part in its first sweep after seeing the lost
    runs twice, and every run resumes at once: none waits for a later sweep. (Two claims racing
    on one run both took it before claims locked the row, and the run a claimant counted twice
    was one another run lacked: it waited for more sweeps.)"""
    slots = {"max_concurrent_runs": 3, "max_queued_runs": 0, "failover_interval": 0}
    b = await make_harness(database_url=postgres_url, **slots)
    c = await make_harness(database_url=postgres_url, **slots)
    own = automate_request(steps=1, hold=True)
    await b.runs.CreateRun(
        run_service_pb2.CreateRunRequest(automate=own.params, options=own.options)
    )
    lost = start_replica()  # started after B and C, whose start-up would close its runs
    async with grpc.aio.insecure_channel(f"127.0.0.1:{lost.port}") as channel:
        stub = run_service_pb2_grpc.RunServiceStub(channel)
        for _ in range(5):
            request = automate_request(steps=1, hold=True)
            await stub.CreateRun(
                run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
            )
    lost.kill()
    await eventually(lambda: len(b.server.store.orphans()) == 5, within=30)
    seen = [h.server.runs.sweep_orphans({})[1] for h in (b, c)]  # each sees them once
    taken = [h.server.runs.sweep_orphans(s)[0] for h, s in zip((b, c), seen, strict=True)]
    assert sorted(taken) == [2, 3] and b.server.store.orphans() == []
    assert (b.server.runs.active_count, c.server.runs.active_count) == (3, 3)
    await eventually(lambda: running(postgres_url) == 6, within=30)  # none waits for a slot


def running(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM runs WHERE state = %s", (run_pb2.RUN_STATE_RUNNING,)
        ).fetchone()
    return int(row[0]) if row else 0
