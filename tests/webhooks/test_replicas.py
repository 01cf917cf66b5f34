"""At least once, whatever happens to the replica delivering: killed (SIGKILL) in the middle of a
delivery, its delivery is made again after its lease, by the same replica restarted (SQLite) or
by another one (PostgreSQL), with the same webhook-id; three replicas sharing PostgreSQL, one of
them killed while delivering, lose no event, and every duplicate carries its event's id."""

from __future__ import annotations

import itertools
from pathlib import Path

import grpc
import pytest

from tests.store.conftest import replica_starter
from tests.support.harness import ServerProcess, eventually
from tests.webhooks.receivers import Receiver
from tests.webhooks.support import SUCCEEDED, Calls, webhook_env

# A short attempt timeout makes a short lease (2 x 2 s + 5 s): a killed replica's claim lapses soon.
_ENV = webhook_env(OUTRIDER_WEBHOOKS_TIMEOUT="2")


async def _run_to_its_end(replica: ServerProcess, receiver: Receiver) -> str:
    """Creates an endpoint and a run on `replica`; returns the run's id once it was delivered
    (the receiver holds it) the first time."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
        calls = Calls(channel)
        await calls.endpoint(receiver.url, "run.ended")
        run_id = await calls.run(steps=1)
    await eventually(lambda: len(receiver.deliveries) == 1, within=20)
    return run_id


async def test_killed_mid_delivery_the_restarted_replica_delivers_again(tmp_path: Path) -> None:
    receiver = Receiver(hold=60).start()  # the first attempt never gets its answer
    killed = ServerProcess(tmp_path, False, False, **_ENV)
    restarted = ServerProcess(tmp_path, False, False, **_ENV)
    try:
        killed.start()
        killed.drain()
        run_id = await _run_to_its_end(killed, receiver)
        killed.close()  # SIGKILL while the delivery waits for its answer
        receiver.hold = 0
        restarted.start()  # the same data directory
        restarted.drain()
        await eventually(lambda: len(receiver.deliveries) >= 2, within=30)
        first, again = receiver.deliveries[:2]
        assert again.id == first.id and again.data["run"] == f"runs/{run_id}"
    finally:
        killed.close()
        restarted.close()
        receiver.stop()


async def test_killed_mid_delivery_another_replica_delivers_again(
    postgres_url: str, tmp_path: Path
) -> None:
    receiver = Receiver(hold=60).start()
    with replica_starter(postgres_url, tmp_path) as start:
        first = start(**_ENV)
        first.drain()
        run_id = await _run_to_its_end(first, receiver)
        first.kill()
        receiver.hold = 0
        second = start(**_ENV)
        second.drain()
        await eventually(lambda: len(receiver.deliveries) >= 2, within=30)
    receiver.stop()
    first_try, again = receiver.deliveries[:2]
    assert again.id == first_try.id and again.data["run"] == f"runs/{run_id}"


@pytest.mark.timeout(240)
async def test_three_replicas_lose_no_event_and_duplicates_share_their_id(
    postgres_url: str, tmp_path: Path
) -> None:
    receiver = Receiver(hold=1.0).start()  # slow: several deliveries are in flight at the kill
    with replica_starter(postgres_url, tmp_path) as start:
        replicas = [start(**_ENV) for _ in range(3)]
        for replica in replicas:
            replica.drain()
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{r.port}") for r in replicas]
        try:
            calls = [Calls(channel) for channel in channels]
            await calls[0].endpoint(receiver.url, "run.ended")
            run_ids = [await c.run(steps=1) for c, _ in zip(itertools.cycle(calls), range(12))]

            async def all_ended() -> bool:
                return all([await calls[0].state(run_id) == SUCCEEDED for run_id in run_ids])

            await eventually(all_ended, within=60)
            await eventually(lambda: len(receiver.deliveries) >= 1, within=20)
            replicas[2].kill()  # deliveries it claimed are left to the others after their lease
            receiver.hold = 0.05
            await eventually(lambda: _runs_of(receiver) == set(run_ids), within=90)
        finally:
            for channel in channels:
                await channel.close()
    receiver.stop()
    ids_per_run: dict[str, set[str]] = {}
    for delivery in receiver.deliveries:
        ids_per_run.setdefault(delivery.data["run"], set()).add(delivery.id)
    assert all(len(ids) == 1 for ids in ids_per_run.values()), ids_per_run
    assert len(receiver.ids()) == 12


def _runs_of(receiver: Receiver) -> set[str]:
    return {d.data["run"].removeprefix("runs/") for d in list(receiver.deliveries)}
