"""The PostgreSQL store outlives dropped connections (a database restart or failover, an idle
timeout): queued writes are committed once a connection is back, in order and without loss or
duplicates; reads retry on a fresh connection; watchers of other processes' runs hear events
committed after their LISTEN connection was dropped."""

from __future__ import annotations

import asyncio
import time

import psycopg

from outrider.server.core.cluster.presence import PresenceKeeper
from outrider.server.core.storage.postgres.store import PostgresStore
from outrider.v1 import run_event_pb2
from tests.store.test_contract import RUNNING, a_run
from tests.support.harness import eventually
from tests.support.postgres import listening


def drop_connections(url: str) -> int:
    """Terminates every other session on the database, as a restart would, and returns once
    they are gone (up to 5 s each): a session still exiting holds its presence lock."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


def append(store: PostgresStore, run_id: str, sequences: range) -> None:
    """Events of a run this store executes (it saves the run first: only its owner appends)."""
    if sequences.start == 1:
        store.save_run(a_run(run_id, 1, state=RUNNING), run_id)
    for sequence in sequences:
        store.append_event(run_id, run_event_pb2.RunEvent(sequence=sequence))


def test_writes_and_reads_continue_after_connections_are_dropped(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    try:
        append(store, "r", range(1, 51))
        store.flush()
        assert drop_connections(postgres_url) >= 1
        append(store, "r", range(51, 101))  # the writer's connection is gone: it reconnects
        assert [e.sequence for e in store.events_after("r", 0, 1000)] == list(range(1, 101))
        drop_connections(postgres_url)
        assert [e.sequence for e in store.last_events("r", 1)] == [100]  # a read retries
    finally:
        store.close()


async def test_a_watcher_hears_events_after_its_listen_connection_was_dropped(
    postgres_url: str,
) -> None:
    watching, executing = PostgresStore(postgres_url), PostgresStore(postgres_url)
    feed = watching.event_feed()
    assert feed is not None
    try:
        watch = feed.watch("r")
        append(executing, "r", range(1, 3))
        assert await watch.wait(30)
        drop_connections(postgres_url)
        await eventually(lambda: listening(postgres_url))  # the feed reconnected, and woke
        assert await watch.wait(30)  # its watchers once, to read what they may have missed
        await asyncio.to_thread(append, executing, "r", range(3, 5))
        assert await watch.wait(30)
        assert [e.sequence for e in watching.events_after("r", 2, 10)] == [3, 4]
        watch.close()
    finally:
        watching.close()
        executing.close()
        await eventually(lambda: not listening(postgres_url))  # the feed's task let go of it


def test_a_process_takes_its_presence_back_after_its_session_was_dropped(postgres_url: str) -> None:
    owner, other = PostgresStore(postgres_url), PostgresStore(postgres_url)
    try:
        owner.save_run(a_run("a", 1, state=RUNNING), "a")
        owner.flush()
        assert other.orphans() == []
        drop_connections(postgres_url)  # as a database restart: every presence lock goes
        assert [o.run.name for o in other.orphans()] == ["runs/a"]  # nobody's, for now
        assert owner.keep_presence() is True  # its keeper's next check takes it back
        assert owner.presence_epoch() == 1 and owner.keep_presence() is False
        assert other.keep_presence() is True
        assert owner.orphans() == [] and other.orphans() == []
    finally:
        owner.close()
        other.close()


async def test_presence_comes_back_while_the_event_loop_is_held(postgres_url: str) -> None:
    """The keeper's checks do not wait for the event loop: held for seconds (a read waiting for
    a pooled connection while PostgreSQL is down, a busy machine), a live replica still takes
    its presence back at once, and no other replica sweeps its runs up as a dead one's."""
    owner = PostgresStore(postgres_url)
    keeper = PresenceKeeper(owner, 0.1)
    keeper.start()
    try:
        owner.save_run(a_run("a", 1, state=RUNNING), "a")
        owner.flush()
        drop_connections(postgres_url)  # as a database restart: every presence lock goes
        other = PostgresStore(postgres_url)  # a replica judging it (its own lock is new)
        try:
            assert owner_back_while_loop_is_held(other, within=10.0)
        finally:
            other.close()
    finally:
        await keeper.stop()
        owner.close()


def owner_back_while_loop_is_held(other: PostgresStore, within: float) -> bool:
    """Called on the event loop, which it holds: whether run `a` has a live owner again."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if other.orphans() == []:
            return True
        time.sleep(0.05)
    return False
