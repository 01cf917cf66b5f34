"""The PostgreSQL store across a failover: a primary and a streaming standby (made with
`pg_basebackup -R`), the store given both in a multi-host URL with
`target_session_attrs=read-write`. The primary is stopped as a crash stops it and the standby
promoted: the store's writes, reads, LISTEN and presence move to the new primary, and what an
asynchronous standby had not received yet is written again by the store that wrote it. A
server that refuses writes (a standby, a demoted primary) holds writes back, never drops them."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import psycopg
import pytest

from outrider.server.core.storage import ActiveLimits
from outrider.server.core.storage.postgres.store import PostgresStore
from tests.store.test_contract import RUNNING, SUCCEEDED, a_run, an_event
from tests.store.test_pg_connections import append, drop_connections
from tests.support.harness import eventually
from tests.support.pg_replicated import ReplicatedPostgres
from tests.support.postgres import listening


@pytest.fixture
def cluster(replicated_postgres: ReplicatedPostgres) -> Iterator[ReplicatedPostgres]:
    replicated_postgres.ready(synchronous=True)
    yield replicated_postgres


def sequences(store: PostgresStore, run_id: str) -> list[int]:
    return [event.sequence for event in store.events_after(run_id, 0, 1000)]


def rows_on(url: str, sql: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql).fetchall()


def execute_on(url: str, sql: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


async def test_a_store_goes_on_on_the_promoted_standby(
    cluster: ReplicatedPostgres, caplog: pytest.LogCaptureFixture
) -> None:
    url = cluster.create_database()
    store, watching = PostgresStore(url), PostgresStore(url)
    feed = watching.event_feed()
    assert feed is not None
    try:
        watch = feed.watch("r")
        await asyncio.to_thread(append, store, "r", range(1, 6))
        assert await watch.wait(30)
        # The writer notes the server's WAL insert position, which may run ahead of what the
        # standby has (other sessions' records): under load the crash could otherwise come
        # before the standby reached it, and everything would be sent again (harmless, but
        # not what this test checks).
        await asyncio.to_thread(store.flush)
        await asyncio.to_thread(cluster.wait_replayed)
        await asyncio.to_thread(cluster.fail_over)
        await asyncio.to_thread(append, store, "r", range(6, 11))  # queued, then written there
        await asyncio.to_thread(store.flush)
        while await watch.wait(0.2):  # the reconnection's wake-up, then the new events'
            if sequences(watching, "r")[-1:] == [10]:
                break
        assert sequences(watching, "r") == list(range(1, 11))
        # the synchronous standby had what the store noted before the crash: not sent again
        (replayed,) = [r.args[0] for r in caplog.records if "recent writes again" in r.msg]
        assert isinstance(replayed, int) and replayed < 6  # of the run's save and events 1-5
        # every connection is on the new primary, the presence lock too (once the keeper looked)
        for each in (store, watching):
            await asyncio.to_thread(each.keep_presence)  # what the presence keeper calls
        locks = rows_on(
            f"{cluster.primary.url}/postgres",
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted",
        )
        assert locks == [(2,)]  # both stores' presence
        watch.close()
    finally:
        store.close()
        watching.close()
        await eventually(lambda: not listening(url))  # the feed let go of its connection


def test_writes_an_asynchronous_standby_missed_are_written_again(
    replicated_postgres: ReplicatedPostgres,
) -> None:
    cluster = replicated_postgres
    cluster.ready(synchronous=False)
    url = cluster.create_database()
    store = PostgresStore(url, replay_seconds=60)
    try:
        append(store, "r", range(1, 6))
        store.save_run(a_run("gone", 1, state=RUNNING), "gone")
        store.flush()
        cluster.wait_replayed()
        cluster.stop_standby()  # from now on only the primary has what is committed
        append(store, "r", range(6, 9))
        store.save_run(a_run("late", 2, state=SUCCEEDED), "late")
        # a start commits its run at once, in a transaction of its own
        assert store.insert_run_within(a_run("new", 3, RUNNING), "new", ActiveLimits()) is None
        store.append_event("new", an_event("new", 1))
        store.save_run(a_run("gone", 1, state=SUCCEEDED), "gone")
        store.flush()
        assert store.delete_run("gone") is not None  # deleted before the failover
        cluster.stop_primary()
        cluster.start_standby()
        cluster.promote()  # without events 6-8, runs "late" and "new", gone's end and deletion
        append(store, "r", range(9, 11))
        store.flush()
        assert sequences(store, "r") == list(range(1, 11))
        late = store.get_run("late")
        assert late is not None and late.state == SUCCEEDED
        assert store.get_run("gone") is None  # deleted again
        assert sequences(store, "new") == [1]
    finally:
        store.close()


def test_writes_wait_while_the_server_refuses_them(postgres_url: str) -> None:
    """As when a stale address leads to a standby or a demoted primary: every write is refused
    as read-only. They are held (not dropped as bad data) and go in once writes are accepted."""
    database = postgres_url.rsplit("/", 1)[1]
    store = PostgresStore(postgres_url)
    try:
        append(store, "r", range(1, 4))
        store.flush()
        execute_on(
            postgres_url, f'ALTER DATABASE "{database}" SET default_transaction_read_only = on'
        )
        drop_connections(postgres_url)  # new sessions are read-only
        append(store, "r", range(4, 7))
        asyncio.run(eventually(lambda: refused_writes(postgres_url) > 0, within=30))
        queued, committed = store.commit_marks()
        assert committed < queued  # held, not given up on
        execute_on(
            postgres_url.rsplit("/", 1)[0] + "/postgres",
            f'ALTER DATABASE "{database}" RESET default_transaction_read_only',
        )
        store.flush()
        assert sequences(store, "r") == list(range(1, 7))
    finally:
        store.close()


def refused_writes(url: str) -> int:
    """Transactions rolled back in the database so far."""
    rows = rows_on(
        url, "SELECT xact_rollback FROM pg_stat_database WHERE datname = current_database()"
    )
    return int(str(rows[0][0]))
