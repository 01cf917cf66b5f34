"""A run's ending commits in one PostgreSQL transaction: its terminal events and its ended
record. So a watcher on another replica that reads `done` finds the run ended, and a replica lost
between the two cannot leave a run ended by its events but active by its record (its claimant
would close it as lost). Triggers added by the test log which transaction wrote each row."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc
import psycopg

from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.support.harness import ServerProcess
from tests.support.requests import automate_request, read_until

RECORDING = """
CREATE TABLE written (kind TEXT, run_id TEXT, sequence BIGINT, state INTEGER, tx BIGINT);
CREATE FUNCTION event_written() RETURNS trigger AS $$ BEGIN
  INSERT INTO written VALUES ('event', NEW.run_id, NEW.sequence, NULL, txid_current());
  RETURN NEW; END $$ LANGUAGE plpgsql;
CREATE FUNCTION run_written() RETURNS trigger AS $$ BEGIN
  INSERT INTO written VALUES ('run', NEW.id, NULL, NEW.state, txid_current());
  RETURN NEW; END $$ LANGUAGE plpgsql;
CREATE TRIGGER events_written AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION event_written();
CREATE TRIGGER runs_written AFTER INSERT OR UPDATE ON runs
  FOR EACH ROW EXECUTE FUNCTION run_written();
"""
ENDED = (run_pb2.RUN_STATE_SUCCEEDED, run_pb2.RUN_STATE_FAILED, run_pb2.RUN_STATE_CANCELLED)


def record_writes(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(RECORDING)


def ending_transactions(url: str, run_id: str) -> tuple[int, set[int]]:
    """The transaction that wrote the run's last event, and those that wrote it ended."""
    with psycopg.connect(url, autocommit=True) as conn:
        last = conn.execute(
            "SELECT tx FROM written WHERE kind = 'event' AND run_id = %s "
            "ORDER BY sequence DESC LIMIT 1",
            (run_id,),
        ).fetchone()
        ended = conn.execute(
            "SELECT tx FROM written WHERE kind = 'run' AND run_id = %s AND state = ANY(%s)",
            (run_id, list(ENDED)),
        ).fetchall()
    assert last is not None, run_id
    return last[0], {row[0] for row in ended}


async def start(stub: run_service_pb2_grpc.RunServiceStub, **plan: object) -> str:
    request = automate_request(**plan)
    created = await stub.CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    return created.run.name


async def test_a_run_s_done_and_its_ended_record_commit_together(
    start_replica: Callable[..., ServerProcess], postgres_url: str
) -> None:
    replica = start_replica()
    record_writes(postgres_url)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
        stub = run_service_pb2_grpc.RunServiceStub(channel)
        names = [await start(stub, steps=1) for _ in range(8)]
        for name in names:
            stream = stub.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))
            await asyncio.wait_for(read_until(stream, "done"), 60)
    for name in names:
        last, ended = ending_transactions(postgres_url, name.removeprefix("runs/"))
        assert ended == {last}, (name, last, ended)


async def test_a_lost_run_s_closing_events_and_record_commit_together(
    start_replica: Callable[..., ServerProcess], postgres_url: str
) -> None:
    lost, survivor = (start_replica(OUTRIDER_FAILOVER_INTERVAL="0.5") for _ in range(2))
    record_writes(postgres_url)
    async with (
        grpc.aio.insecure_channel(f"127.0.0.1:{lost.port}") as first,
        grpc.aio.insecure_channel(f"127.0.0.1:{survivor.port}") as second,
    ):
        # secret data: the survivor closes the run rather than resuming it
        stub = run_service_pb2_grpc.RunServiceStub(first)
        name = await start(stub, steps=1, hold=True, password="x1")
        watcher = run_service_pb2_grpc.RunServiceStub(second).StreamRunEvents(
            run_service_pb2.StreamRunEventsRequest(name=name)
        )
        await read_until(watcher, "agent:action")
        lost.kill()
        await asyncio.wait_for(read_until(watcher, "done"), 60)
    last, ended = ending_transactions(postgres_url, name.removeprefix("runs/"))
    assert ended == {last}, (name, last, ended)
