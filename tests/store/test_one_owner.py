"""One owner per run (issue 34, item 2), made to happen on demand rather than by luck: two claims
racing on one orphan, a flap of the claimant's presence between two sweeps of another replica,
and a former owner's late write racing the claim of a run whose new owner is gone too. Each
gave a run two owners before owner generations fenced adoption."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc
import psycopg

from outrider.server.core.storage import ActiveLimits, Store
from outrider.v1 import run_event_pb2, run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.conftest import HarnessFactory
from tests.support.harness import ServerProcess, eventually
from tests.support.postgres import (
    drop_presence,
    presence_keys,
    waiting_for_locks,
)
from tests.support.requests import automate_request


def owner_of(url: str, run_id: str) -> tuple[int, int]:
    """(owner key, owner generation) of the run, as stored."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT owner, takeovers FROM runs WHERE id = %s", (run_id,)).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def inserted(store: Store, run_id: str) -> run_pb2.Run:
    """A running run `store` started (a new run's first owner generation, 0)."""
    run = run_pb2.Run(name=f"runs/{run_id}", kind=run_pb2.RUN_KIND_AUTOMATE)
    run.state = run_pb2.RUN_STATE_RUNNING
    assert store.insert_run_within(run, run_id, ActiveLimits()) is None
    return run


async def test_two_claims_racing_on_one_orphan_give_it_one_owner(
    two_stores: tuple[Store, Store], postgres_url: str
) -> None:
    """C's claim holds the orphan's row when B's claim comes: B must wait, then see C's claim
    (C lives) and leave the run. A single UPDATE re-checked the row after waiting but not the
    presence join, and took the run C had just claimed."""
    first, second = two_stores
    c_key, b_key = presence_keys(postgres_url)
    inserted(first, "raced")
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # its owner is gone
        conn.execute("UPDATE runs SET owner = 1 WHERE id = 'raced'")
    with psycopg.connect(postgres_url) as c_claiming:  # C's claim, not committed yet
        c_claiming.execute(
            "UPDATE runs SET owner = %s, takeovers = takeovers + 1 WHERE id = 'raced'", (c_key,)
        )
        b_claiming = asyncio.create_task(asyncio.to_thread(second.claim_orphan, "raced"))
        await eventually(lambda: waiting_for_locks(postgres_url) == 1, within=20)
        c_claiming.commit()
    assert await asyncio.wait_for(b_claiming, 20) is None
    assert owner_of(postgres_url, "raced") == (c_key, 1)
    assert b_key != c_key


async def test_a_flap_of_the_claimants_presence_between_two_sweeps_does_not_move_its_run(
    start_replica: Callable[..., ServerProcess],
    make_harness: HarnessFactory,
    postgres_url: str,
) -> None:
    """B saw the orphan once; C claimed it; C's presence flaps just as B sweeps again. B has
    seen the run nobody's twice in a row, but not in the same owner generation: it must leave it
    to C, who takes its presence back."""
    b = await make_harness(database_url=postgres_url, failover_interval=0)
    c = await make_harness(database_url=postgres_url, failover_interval=0)
    for keeper in (b.server.presence, c.server.presence):
        assert keeper is not None
        await keeper.stop()  # presence is checked by hand below
    lost = start_replica()  # started after B and C, whose start-up would close its run
    async with grpc.aio.insecure_channel(f"127.0.0.1:{lost.port}") as channel:
        request = automate_request(steps=1, hold=True)
        created = await run_service_pb2_grpc.RunServiceStub(channel).CreateRun(
            run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
        )
    run_id = created.run.name.removeprefix("runs/")
    lost.kill()
    if b.server.store.worker_loads()[0].mine:  # C: the one an even spread gives the run to
        b, c = c, b
    await eventually(lambda: owner_of(postgres_url, run_id)[0] not in presence_keys(postgres_url))
    _, seen_by_b = b.server.runs.sweep_orphans({})
    _, seen_by_c = c.server.runs.sweep_orphans({})
    assert c.server.runs.sweep_orphans(seen_by_c)[0] == 1  # C claims the run (generation 1)
    c_key, generation = owner_of(postgres_url, run_id)
    assert generation == 1
    drop_presence(postgres_url, c_key)  # C's presence flaps
    taken, _ = b.server.runs.sweep_orphans(seen_by_b)
    assert taken == 0
    assert c.server.store.keep_presence()  # C takes its presence back
    assert owner_of(postgres_url, run_id) == (c_key, 1)
    assert c.server.runs.active_count == 1 and b.server.runs.active_count == 0


def test_a_former_owner_cannot_take_its_run_back_while_its_claimant_is_gone(
    two_stores: tuple[Store, Store], postgres_url: str
) -> None:
    """A lost its run to B (a partition); B died before a third replica claimed it, and A's
    late writes arrive meanwhile. Were A's save let in because the run's owner is gone, A would
    own the run again, unclaimed, beside whoever claims it next. A may claim it as a new
    generation, and then only that generation's writes count."""
    a, b = two_stores
    a_key, b_key = presence_keys(postgres_url)
    run = inserted(a, "moved")
    drop_presence(postgres_url, a_key)  # A is cut off
    assert b.claim_orphan("moved", 0) == 1
    assert a.keep_presence()  # the partition heals; A has not swept yet
    drop_presence(postgres_url, b_key)  # B dies
    run.state = run_pb2.RUN_STATE_INPUT_REQUIRED
    a.save_run(run, "moved")  # A's late writes, of generation 0
    a.append_event("moved", run_event_pb2.RunEvent(run="runs/moved", sequence=1))
    a.flush()
    assert owner_of(postgres_url, "moved") == (b_key, 1)
    stored = a.get_run("moved")
    assert stored is not None and stored.state == run_pb2.RUN_STATE_RUNNING
    assert a.events_after("moved", 0, 10) == []
    assert a.fenced_out("moved")
    assert a.claim_orphan("moved", 0) is None  # not in the generation it was seen in
    assert a.claim_orphan("moved", 1) == 2  # a claim of its own, as any replica may make
    a.append_event("moved", run_event_pb2.RunEvent(run="runs/moved", sequence=1))
    a.flush()
    assert [e.sequence for e in a.events_after("moved", 0, 10)] == [1]
    assert owner_of(postgres_url, "moved") == (a_key, 2)
