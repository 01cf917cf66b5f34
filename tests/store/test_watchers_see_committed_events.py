"""On SQLite a watcher is sent an event only once the event is committed, so a crash of the
process cannot take back an event a client has already seen (PostgreSQL writes behind: its
readers wait for the queue instead, see `Store.when_committed`)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from outrider.server.core.event_log import EventLog
from outrider.server.core.store import SqliteStore
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_pb2
from tests.support.harness import eventually


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
