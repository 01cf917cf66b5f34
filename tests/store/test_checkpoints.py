"""Checkpoints in the store, on both backends: the newest replaces the one before, it goes when
the run's agent ends it or with the run, and on PostgreSQL a replica that lost a run cannot
replace or drop the checkpoint of the replica that took it over."""

from __future__ import annotations

from outrider.server.core.storage import Store
from outrider.v1 import run_pb2
from tests.support.postgres import drop_presence_of_all_but_newest


def a_running_run(run_id: str) -> run_pb2.Run:
    run = run_pb2.Run(name=f"runs/{run_id}", kind=run_pb2.RUN_KIND_RESEARCH)
    run.state = run_pb2.RUN_STATE_RUNNING
    run.create_time.FromMicroseconds(1)
    return run


def test_the_newest_checkpoint_is_read_back_and_goes_when_dropped(store: Store) -> None:
    store.save_run(a_running_run("a"), "a")
    store.save_run(a_running_run("b"), "b")
    assert store.load_checkpoint("a") is None
    store.save_checkpoint("a", '{"stage": "plan"}')
    store.save_checkpoint("a", '{"stage": "iterate", "text": "nul \\u0000 and \\u00e9"}')
    store.save_checkpoint("b", '{"stage": "write"}')
    assert store.load_checkpoint("a") == '{"stage": "iterate", "text": "nul \\u0000 and \\u00e9"}'
    store.delete_checkpoint("a")
    assert store.load_checkpoint("a") is None
    assert store.load_checkpoint("b") == '{"stage": "write"}'  # another run's is kept


def test_a_checkpoint_is_deleted_with_its_run(store: Store) -> None:
    run = a_running_run("gone")
    store.save_run(run, "gone")
    store.save_checkpoint("gone", '{"stage": "iterate"}')
    run.state = run_pb2.RUN_STATE_SUCCEEDED
    store.save_run(run, "gone")
    assert store.delete_run("gone")  # as retention and DeleteRun do
    assert store.load_checkpoint("gone") is None


def test_a_replica_that_lost_a_run_cannot_replace_or_drop_its_checkpoint(
    two_stores: tuple[Store, Store], postgres_url: str
) -> None:
    cut_off, survivor = two_stores
    cut_off.save_run(a_running_run("fenced"), "fenced")
    cut_off.save_checkpoint("fenced", '{"stage": "iterate", "iteration": 1}')
    cut_off.flush()
    drop_presence_of_all_but_newest(postgres_url)  # as a partition does, past its keepalives
    assert survivor.claim_orphan("fenced") == 1
    assert survivor.load_checkpoint("fenced") == '{"stage": "iterate", "iteration": 1}'
    survivor.save_checkpoint("fenced", '{"stage": "iterate", "iteration": 2}')
    survivor.flush()
    cut_off.save_checkpoint("fenced", '{"stage": "write", "stale": true}')  # arrives late
    cut_off.delete_checkpoint("fenced")  # the lost replica's agent ending the run there
    cut_off.flush()
    assert survivor.load_checkpoint("fenced") == '{"stage": "iterate", "iteration": 2}'
    survivor.delete_checkpoint("fenced")  # the owner's own writes go through
    assert survivor.load_checkpoint("fenced") is None
