"""Checkpoints in the store, on both backends: each part is replaced by its newest body and the
others kept, every part goes when the run's agent ends it or with the run, and on PostgreSQL a
replica that lost a run cannot replace or drop the checkpoint of the replica that took it over."""

from __future__ import annotations

from outrider.server.core.storage import Store
from outrider.v1 import run_pb2
from tests.support.postgres import drop_oldest_presence


def a_running_run(run_id: str) -> run_pb2.Run:
    run = run_pb2.Run(name=f"runs/{run_id}", kind=run_pb2.RUN_KIND_RESEARCH)
    run.state = run_pb2.RUN_STATE_RUNNING
    run.create_time.FromMicroseconds(1)
    return run


def test_each_part_keeps_its_newest_body_until_the_checkpoint_is_dropped(store: Store) -> None:
    store.save_run(a_running_run("a"), "a")
    store.save_run(a_running_run("b"), "b")
    assert store.load_checkpoint("a") == {}
    page = '{"text": "nul \\u0000 and \\u00e9"}'
    store.save_checkpoint("a", "page:S1", page)
    store.save_checkpoint("a", "state", '{"stage": "plan"}')
    store.save_checkpoint("a", "state", '{"stage": "iterate"}')  # the page part is kept
    store.save_checkpoint("b", "state", '{"stage": "write"}')
    assert store.load_checkpoint("a") == {"page:S1": page, "state": '{"stage": "iterate"}'}
    store.delete_checkpoint("a")
    assert store.load_checkpoint("a") == {}
    assert store.load_checkpoint("b") == {"state": '{"stage": "write"}'}  # another run's is kept


def test_a_checkpoint_is_deleted_with_its_run(store: Store) -> None:
    run = a_running_run("gone")
    store.save_run(run, "gone")
    store.save_checkpoint("gone", "state", '{"stage": "iterate"}')
    store.save_checkpoint("gone", "page:S1", "{}")
    run.state = run_pb2.RUN_STATE_SUCCEEDED
    store.save_run(run, "gone")
    assert store.delete_run("gone") == 0  # as retention and DeleteRun do (no artifact bytes)
    assert store.load_checkpoint("gone") == {}


def test_a_replica_that_lost_a_run_cannot_replace_or_drop_its_checkpoint(
    two_stores: tuple[Store, Store], postgres_url: str
) -> None:
    cut_off, survivor = two_stores
    cut_off.save_run(a_running_run("fenced"), "fenced")
    cut_off.save_checkpoint("fenced", "state", '{"iteration": 1}')
    cut_off.flush()
    drop_oldest_presence(postgres_url)  # as a partition does, past its keepalives
    assert survivor.claim_orphan("fenced") == 1
    assert survivor.load_checkpoint("fenced") == {"state": '{"iteration": 1}'}
    survivor.save_checkpoint("fenced", "state", '{"iteration": 2}')
    survivor.flush()
    cut_off.save_checkpoint("fenced", "state", '{"stale": true}')  # arrives late
    cut_off.save_checkpoint("fenced", "page:S9", '{"stale": true}')
    cut_off.delete_checkpoint("fenced")  # the lost replica's agent ending the run there
    cut_off.flush()
    assert survivor.load_checkpoint("fenced") == {"state": '{"iteration": 2}'}
    survivor.delete_checkpoint("fenced")  # the owner's own writes go through
    assert survivor.load_checkpoint("fenced") == {}
