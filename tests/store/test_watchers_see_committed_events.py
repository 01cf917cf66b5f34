"""A watcher is sent an event only once the event is committed (SQLite: the loop iteration's
commit; PostgreSQL: the write-behind thread's), so a crash of the process cannot take back an
event a client has already seen."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import psycopg

from outrider.server.core.events.log import EventLog
from outrider.server.core.storage.postgres.store import PostgresStore
from outrider.server.core.storage.sqlite.store import SqliteStore
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_pb2
from tests.support.harness import eventually
from tests.support.postgres import waiting_for_locks


def reasoned(text: str) -> ae.AutomateEvent:
    return ae.AutomateEvent(agent_reasoned=ae.AgentReasoned(reasoning=text))


async def test_a_live_watcher_is_sent_an_event_only_after_its_commit(tmp_path: Path) -> None:
    path = tmp_path / "outrider.sqlite3"
    store = SqliteStore(path)
    log = EventLog(store, buffer_limit=100)
    log.open("run1")
    committed = sqlite3.connect(path)  # sees what another process would: committed rows only
    sent: list[tuple[int, bool]] = []

    async def watch() -> None:
        async for batch in log.follow_batches("run1", 0, heartbeat_interval=30):
            assert isinstance(batch, list)
            for event in batch:
                row = committed.execute(
                    "SELECT 1 FROM events WHERE run_id = 'run1' AND sequence = ?",
                    (event.sequence,),
                ).fetchone()
                sent.append((event.sequence, row is not None))

    watcher = asyncio.create_task(watch())
    await eventually(lambda: log.watcher_count("run1") == 1)  # subscribed to the live end
    # Another write already scheduled this iteration's commit when the first event comes, and a
    # callback queued before the watcher wakes appends the second event after that commit: the
    # watcher, woken by the first, must not take the second before its own commit.
    store.save_run(run_pb2.Run(name="runs/run1", state=run_pb2.RUN_STATE_RUNNING), "run1")
    asyncio.get_running_loop().call_soon(log.append, "run1", reasoned("second"))
    log.append("run1", reasoned("first"))
    await eventually(lambda: len(sent) == 2)
    log.close("run1")
    await asyncio.wait_for(watcher, 10)
    committed.close()
    store.close()
    assert sent == [(1, True), (2, True)]


async def test_on_postgresql_a_live_watcher_waits_for_the_write_behind_commit(
    postgres_url: str,
) -> None:
    store = PostgresStore(postgres_url)
    log = EventLog(store, buffer_limit=100)
    store.save_run(run_pb2.Run(name="runs/run1", state=run_pb2.RUN_STATE_RUNNING), "run1")
    store.flush()
    log.open("run1")
    sent: list[int] = []

    async def watch() -> None:
        async for batch in log.follow_batches("run1", 0, heartbeat_interval=30):
            assert isinstance(batch, list)
            sent.extend(event.sequence for event in batch)

    watcher = asyncio.create_task(watch())
    await eventually(lambda: log.watcher_count("run1") == 1)
    with psycopg.connect(postgres_url) as blocker:  # holds the writer's inserts back
        blocker.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
        for text in ("first", "second", "third"):
            log.append("run1", reasoned(text))
        await eventually(lambda: waiting_for_locks(postgres_url) == 1)  # the writer is stuck
        assert sent == []  # nothing uncommitted reached the watcher
    # the lock is gone (transaction ended): the three commit, then reach the watcher
    await eventually(lambda: sent == [1, 2, 3])
    with psycopg.connect(postgres_url) as reader:
        stored = reader.execute("SELECT count(*) FROM events WHERE run_id = 'run1'").fetchone()
    assert stored == (3,)
    log.close("run1")
    await asyncio.wait_for(watcher, 10)
    store.close()
