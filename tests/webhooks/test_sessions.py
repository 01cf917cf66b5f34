"""session.ended: a session's end reaches the endpoints that want it, signed, with the session's
name, kind and why (ended by a caller, idle, or lost with the process that held it: found at the
next start on SQLite, by the other replicas' failover sweeps on PostgreSQL), one message per
session whose webhook-id its id names."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from outrider.v1 import session_service_pb2
from tests.conftest import HarnessFactory
from tests.sessions.support import create, sessions_stub
from tests.store.conftest import replica_starter
from tests.support.harness import ServerProcess, eventually
from tests.webhooks.receivers import Receiver
from tests.webhooks.support import Calls, webhook_env, webhook_settings


def _message_id(session: str) -> str:
    return f"msg_{session.removeprefix('sessions/')}_ended"


async def test_a_session_ended_by_a_caller_or_idle_is_told_once_to_who_wants_it(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(webhooks=webhook_settings())
    calls = Calls(harness.channel)
    sessions, runs_only = Receiver().start(), Receiver().start()
    try:
        _, secret = await calls.endpoint(sessions.url, "session.ended")
        sessions.secrets.append(secret)
        await calls.endpoint(runs_only.url, "run.ended")
        ended = await create(harness.channel, idle=60, life=120)
        idle = await create(harness.channel, idle=1, life=60)
        await sessions_stub(harness.channel).EndSession(
            session_service_pb2.EndSessionRequest(name=ended.name)
        )
        await eventually(lambda: len(sessions.ids("session.ended")) == 2, within=30)
        told = {d.data["session"]: d for d in sessions.of_type("session.ended")}
        assert told[ended.name].data == {
            "session": ended.name,
            "kind": "automate",
            "reason": "ended",
            "ended_by": "anonymous",
        }
        assert told[idle.name].data == {"session": idle.name, "kind": "automate", "reason": "idle"}
        for name, delivery in told.items():
            assert delivery.verified == (True,) and delivery.id == _message_id(name)
        # ending it again writes nothing more; the run.ended endpoint never hears of sessions
        await sessions_stub(harness.channel).EndSession(
            session_service_pb2.EndSessionRequest(name=ended.name)
        )
        await calls.run(steps=1)
        await eventually(lambda: runs_only.ids("run.ended") != set(), within=20)
        assert len(sessions.deliveries) == 2 and runs_only.ids("session.ended") == set()
    finally:
        sessions.stop()
        runs_only.stop()


async def test_a_session_lost_with_its_killed_process_is_told_at_the_next_start(
    tmp_path: Path,
) -> None:
    receiver = Receiver().start()
    killed = ServerProcess(tmp_path, False, False, **webhook_env())
    restarted = ServerProcess(tmp_path, False, False, **webhook_env())
    try:
        killed.start()
        killed.drain()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{killed.port}") as channel:
            await Calls(channel).endpoint(receiver.url, "session.ended")
            session = await create(channel, idle=600, life=1200)
        killed.close()  # SIGKILL: the session ends with nobody to write its end
        assert receiver.deliveries == []
        restarted.start()  # the same data directory: its recovery ends the session as lost
        restarted.drain()
        await eventually(lambda: receiver.ids("session.ended") != set(), within=30)
        (lost,) = receiver.of_type("session.ended")
        assert lost.id == _message_id(session.name)
        assert lost.data == {"session": session.name, "kind": "automate", "reason": "lost"}
    finally:
        killed.close()
        restarted.close()
        receiver.stop()


@pytest.mark.timeout(180)
async def test_a_session_lost_with_its_replica_is_told_once_by_the_others(
    postgres_url: str, tmp_path: Path
) -> None:
    receiver = Receiver().start()
    sweeping = webhook_env(
        OUTRIDER_FAILOVER_INTERVAL="0.5",
        OUTRIDER_CLUSTER_SECRET="webhook-sessions-" + "s" * 24,
    )
    with replica_starter(postgres_url, tmp_path) as start:
        replicas = [start(**sweeping) for _ in range(3)]
        for replica in replicas:
            replica.drain()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{replicas[1].port}") as channel:
            calls = Calls(channel)
            endpoint, _ = await calls.endpoint(receiver.url, "session.ended")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replicas[0].port}") as holder:
                session = await create(holder, idle=120, life=300)
            replicas[0].kill()  # both others sweep; one ends the session as lost
            await eventually(lambda: receiver.ids("session.ended") != set(), within=60)
            (delivery,) = await calls.deliveries(endpoint)  # one message, whoever ended it
    receiver.stop()
    assert receiver.ids() == {_message_id(session.name)}
    assert receiver.deliveries[0].data["reason"] == "lost"
    assert delivery.name.endswith(_message_id(session.name))
