"""The sessions part of the `Store` contract (`session_contract`), on SQLite and PostgreSQL alike,
and what two PostgreSQL replicas see of each other's sessions."""

from __future__ import annotations

import asyncio

from outrider.server.core.storage import Store
from outrider.server.core.storage.contract import REQUEST_ID_TAKEN, StartKey
from outrider.server.core.storage.session_contract import (
    TENANT_SESSIONS_FULL,
    KeyedSession,
    SessionRunRow,
)
from outrider.v1 import run_pb2, session_pb2

IDLE, RUNNING, ENDED = (
    session_pb2.SESSION_STATE_IDLE,
    session_pb2.SESSION_STATE_RUNNING,
    session_pb2.SESSION_STATE_ENDED,
)


def a_session(
    session_id: str,
    create_us: int,
    tenant: str = "acme",
    kind: int = run_pb2.RUN_KIND_AUTOMATE,
    by: str = "ann",
) -> session_pb2.Session:
    session = session_pb2.Session(
        name=f"sessions/{session_id}", state=IDLE, tenant=tenant, created_by=by
    )
    session.kind = kind  # type: ignore[assignment]
    session.create_time.FromMicroseconds(create_us)
    return session


def an_event(session_id: str, sequence: int) -> session_pb2.SessionEvent:
    event = session_pb2.SessionEvent(session=f"sessions/{session_id}", sequence=sequence)
    event.session_started.url = f"http://example.test/{sequence}"
    return event


def test_sessions_are_inserted_updated_and_listed_newest_first_per_tenant(store: Store) -> None:
    for session_id, at, tenant in (("a", 1, "acme"), ("b", 2, "acme"), ("c", 3, "other")):
        session = a_session(session_id, at, tenant)
        assert asyncio.run(store.insert_session(session, session_id, 0)) is None
    ended = a_session("a", 1)
    ended.state = ENDED
    ended.end_reason = session_pb2.SESSION_END_REASON_IDLE
    ended.end_time.FromMicroseconds(9)
    store.save_session(ended, "a")
    store.flush()
    got = store.get_session("a")
    assert got is not None and got.state == ENDED and got.tenant == "acme"
    assert store.get_session("a", "other") is None and store.get_session("missing") is None
    assert [s.name for s in store.list_sessions(10, None, [], 0)] == [
        "sessions/c",
        "sessions/b",
        "sessions/a",
    ]
    older = store.list_sessions(10, (3, "c"), [], 0)
    assert [s.name for s in older] == ["sessions/b", "sessions/a"]
    assert [s.name for s in store.list_sessions(10, None, [IDLE], 0, "acme")] == ["sessions/b"]
    assert store.list_sessions(10, None, [], run_pb2.RUN_KIND_RESEARCH) == []
    assert store.count_live_sessions() == 2 and store.count_live_sessions("acme") == 1
    assert [s.name for s in store.orphaned_sessions()] in (
        ["sessions/b", "sessions/c"],  # SQLite: every live session of the file
        [],  # PostgreSQL: this replica is alive and owns them
    )


def test_a_tenant_at_its_limit_of_live_sessions_is_refused(store: Store) -> None:
    assert asyncio.run(store.insert_session(a_session("a", 1), "a", 2)) is None
    assert asyncio.run(store.insert_session(a_session("b", 2), "b", 2)) is None
    assert asyncio.run(store.insert_session(a_session("c", 3), "c", 2)) == TENANT_SESSIONS_FULL
    assert store.get_session("c") is None
    assert asyncio.run(store.insert_session(a_session("d", 4, "other"), "d", 2)) is None


def ended(session: session_pb2.Session) -> session_pb2.Session:
    session.state = ENDED
    session.end_time.FromMicroseconds(session.create_time.ToMicroseconds() + 1)
    return session


async def test_a_request_id_names_one_session_of_its_principal_until_it_expires(
    store: Store,
) -> None:
    anns, bobs = (StartKey("acme", who, "rid", "digest", since_us=50) for who in ("ann", "bob"))
    assert await store.insert_session(a_session("a", 100), "a", 0, anns) is None
    assert await store.insert_session(a_session("b", 101), "b", 0, anns) == REQUEST_ID_TAKEN
    assert store.get_session("b") is None  # refused: nothing saved
    assert await store.find_session_start(anns) == KeyedSession("a", "digest")
    assert await store.insert_session(a_session("c", 102, by="bob"), "c", 0, bobs) is None
    other_tenant = StartKey("else", "ann", "rid", "digest", since_us=50)
    assert await store.find_session_start(other_tenant) is None
    later = StartKey("acme", "ann", "rid", "digest", since_us=200)  # a was created before
    assert await store.find_session_start(later) == KeyedSession("a", "digest")  # live: kept
    store.save_session(ended(a_session("a", 100)), "a")
    store.flush()
    assert await store.find_session_start(later) is None  # ended and expired
    assert await store.find_session_start(anns) == KeyedSession("a", "digest")  # not yet for anns
    assert await store.insert_session(a_session("d", 201), "d", 0, later) is None  # frees a's
    assert await store.find_session_start(later) == KeyedSession("d", "digest")
    assert await store.find_session_start(anns) == KeyedSession("d", "digest")
    store.save_session(ended(a_session("c", 102, by="bob")), "c")
    store.flush()
    assert await store.forget_request_ids(1_000) == 1  # c's: ended, created before; d is live
    assert await store.find_session_start(bobs) is None
    assert await store.find_session_start(later) == KeyedSession("d", "digest")


def test_runs_and_own_events_of_a_session_are_kept_in_order(store: Store) -> None:
    asyncio.run(store.insert_session(a_session("s", 1), "s", 0))
    store.append_session_event("s", an_event("s", 1))
    store.add_session_run("s", SessionRunRow("r1", 1))
    store.finish_session_run("s", SessionRunRow("r1", 1, 12, "http://shop.test/cart", "Cart"))
    store.add_session_run("s", SessionRunRow("r2", 13))
    store.append_session_event("s", an_event("s", 1))  # a repeated append keeps the first
    store.flush()
    assert store.session_runs("s") == [
        SessionRunRow("r1", 1, 12, "http://shop.test/cart", "Cart"),
        SessionRunRow("r2", 13),
    ]
    store.append_session_event("s", an_event("s", 30))
    events = store.session_events_after("s", 0, 10)
    assert [e.sequence for e in events] == [1, 30]
    assert events[0].session_started.url == "http://example.test/1"
    assert [e.sequence for e in store.session_events_after("s", 1, 10)] == [30]
    assert store.session_runs("nothing") == [] and store.session_events_after("x", 0, 5) == []


def test_retention_purges_ended_sessions_created_before_a_time_and_nothing_else(
    store: Store,
) -> None:
    for session_id, at in (("old", 10), ("older", 5), ("live", 1), ("new", 50)):
        asyncio.run(store.insert_session(a_session(session_id, at), session_id, 0))
        store.append_session_event(session_id, an_event(session_id, 1))
        store.add_session_run(session_id, SessionRunRow(f"run-{session_id}", 2))
    for session_id, at in (("old", 10), ("older", 5), ("new", 50)):
        ended = a_session(session_id, at)
        ended.state = ENDED
        store.save_session(ended, session_id)
    store.flush()
    assert (
        asyncio.run(store.purge_ended_sessions(20, 1)) == 1
    )  # the oldest first, a batch at a time
    assert store.get_session("older") is None and store.get_session("old") is not None
    assert asyncio.run(store.purge_ended_sessions(20, 10)) == 1
    assert store.get_session("old") is None
    assert store.session_runs("old") == [] and store.session_events_after("old", 0, 5) == []
    assert asyncio.run(store.purge_ended_sessions(20, 10)) == 0
    kept = [s.name for s in store.list_sessions(10, None, [], 0)]
    assert kept == ["sessions/new", "sessions/live"]  # too new, or live however old
    assert len(store.session_runs("live")) == 1 and store.session_events_after("new", 0, 5)


def test_a_lost_replicas_live_session_is_claimed_once(two_stores: tuple[Store, Store]) -> None:
    first, second = two_stores
    asyncio.run(first.insert_session(a_session("s", 1), "s", 0))
    first.announce("127.0.0.1:1", "all")
    first.flush()
    assert second.session_executor("s") == "127.0.0.1:1"
    assert second.orphaned_sessions() == [] and not second.claim_session("s")
    first.close()  # its presence goes with it
    assert [s.name for s in second.orphaned_sessions()] == ["sessions/s"]
    assert second.claim_session("s") and not second.claim_session("s")
    assert second.orphaned_sessions() == []
