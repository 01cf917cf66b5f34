"""The `Store` contract, run against SQLite and PostgreSQL alike: what one backend returns for a
sequence of calls, the other returns too."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import psycopg
import pytest

from outrider.server.browser.recipe_store import Recipe, RecipeStore, Step
from outrider.server.core.errors import Unavailable
from outrider.server.core.storage import Store, open_store
from outrider.server.core.storage.contract import (
    REQUEST_ID_TAKEN,
    ActiveLimits,
    AnswerRecord,
    KeyedRun,
    StartKey,
)
from outrider.server.core.storage.postgres.store import PostgresStore
from outrider.v1 import interaction_pb2, run_event_pb2, run_pb2
from tests.support.harness import settings_for_tests

RUNNING, SUCCEEDED = run_pb2.RUN_STATE_RUNNING, run_pb2.RUN_STATE_SUCCEEDED
QUEUED = run_pb2.RUN_STATE_QUEUED
PENDING = interaction_pb2.INTERACTION_STATE_PENDING


def a_run(
    name: str, create_us: int, state: run_pb2.RunState = SUCCEEDED, tenant: str = ""
) -> run_pb2.Run:
    run = run_pb2.Run(
        name=f"runs/{name}", kind=run_pb2.RUN_KIND_AUTOMATE, state=state, tenant=tenant
    )
    run.create_time.FromMicroseconds(create_us)
    return run


def an_event(run_id: str, sequence: int) -> run_event_pb2.RunEvent:
    return run_event_pb2.RunEvent(run=f"runs/{run_id}", sequence=sequence)


def an_interaction(name: str, create_us: int) -> interaction_pb2.Interaction:
    interaction = interaction_pb2.Interaction(name=f"interactions/{name}", state=PENDING)
    interaction.create_time.FromMicroseconds(create_us)
    return interaction


def test_runs_are_saved_updated_and_listed_newest_first_per_tenant(store: Store) -> None:
    store.save_run(a_run("a", 1, tenant="acme"), "a")
    store.save_run(a_run("b", 2, state=RUNNING), "b")
    store.save_run(a_run("c", 3), "c")
    store.save_run(a_run("a", 1, state=RUNNING, tenant="other"), "a")  # update: tenant is kept
    got = store.get_run("a")
    assert got is not None and got.state == RUNNING and got.tenant == "acme"
    assert store.get_run("a", "acme") is not None and store.get_run("a", "other") is None
    assert store.run_tenant("a") == "acme" and store.run_tenant("missing") is None
    names = [run.name for run in store.list_runs(10, None, [], 0)]
    assert names == ["runs/c", "runs/b", "runs/a"]
    assert [r.name for r in store.list_runs(10, (3, "c"), [], 0)] == ["runs/b", "runs/a"]
    assert [r.name for r in store.list_runs(1, None, [RUNNING], 0)] == ["runs/b"]
    assert [r.name for r in store.list_runs(10, None, [], 0, "acme")] == ["runs/a"]
    assert store.list_runs(10, None, [], run_pb2.RUN_KIND_RESEARCH) == []
    store.flush()
    assert store.count_runs([], 0) == 3 and store.count_runs([RUNNING], 0) == 2
    assert store.count_runs([], 0, "acme") == 1 and store.count_runs([], 0, "nobody") == 0
    assert store.count_runs([], run_pb2.RUN_KIND_RESEARCH) == 0


def test_active_runs_of_a_closed_store_are_left_for_the_next_to_recover(
    store_backend: str, tmp_path: Path
) -> None:
    first = open_store(settings_for_tests(tmp_path))
    first.save_run(a_run("a", 1, state=RUNNING), "a")
    first.save_run(a_run("b", 2, state=RUNNING), "b")
    first.save_run(a_run("c", 3), "c")
    first.close()  # as when its process ends without finishing its runs
    second = open_store(settings_for_tests(tmp_path))
    try:
        assert [o.run.name for o in second.orphans()] == ["runs/a", "runs/b"]
    finally:
        second.close()


def test_on_postgresql_runs_of_a_live_process_are_not_anybodys_to_recover(
    postgres_url: str,
) -> None:
    owner, other = PostgresStore(postgres_url), PostgresStore(postgres_url)
    try:
        owner.save_run(a_run("a", 1, state=RUNNING), "a")
        owner.flush()
        assert other.orphans() == []
        assert owner.orphans() == []
    finally:
        owner.close()
    try:
        assert [o.run.name for o in other.orphans()] == ["runs/a"]
    finally:
        other.close()


def test_events_are_read_after_a_cursor_and_from_the_end(store: Store) -> None:
    store.save_run(a_run("r", 1), "r")
    for sequence in range(1, 8):
        store.append_event("r", an_event("r", sequence))
    assert [e.sequence for e in store.events_after("r", 2, 3)] == [3, 4, 5]
    assert [e.sequence for e in store.events_after("r", 7, 3)] == []
    assert [e.sequence for e in store.last_events("r", 2)] == [6, 7]
    assert store.events_after("other", 0, 10) == []


def test_interactions_page_oldest_first_and_follow_their_runs_tenant(store: Store) -> None:
    store.save_run(a_run("r", 1, tenant="acme"), "r")
    for number in range(3):
        store.save_interaction(an_interaction(f"i{number}", 10 + number), (f"i{number}", "r"))
    answered = an_interaction("i0", 10)
    answered.state = interaction_pb2.INTERACTION_STATE_RESOLVED
    store.save_interaction(answered, ("i0", "r"))
    pending = store.list_interactions("r", [PENDING], 10, None)
    assert [i.name for i in pending] == ["interactions/i1", "interactions/i2"]
    assert [i.name for i in store.list_interactions(None, [PENDING], 10, (11, "i1"))] == [
        "interactions/i2"
    ]
    assert store.list_interactions(None, [PENDING], 10, None, "other") == []
    got = store.get_interaction("i0", "acme")
    assert got is not None and got.state == interaction_pb2.INTERACTION_STATE_RESOLVED
    assert store.get_interaction("i0", "other") is None


def test_an_answers_digest_and_its_runs_lost_attempts_are_kept(store: Store) -> None:
    store.save_run(a_run("r", 1, state=RUNNING), "r")
    asked, other = an_interaction("asked", 10), an_interaction("other", 11)
    store.save_interaction(asked, ("asked", "r"))
    store.save_interaction(other, ("other", "r"))
    assert store.answer_record("asked") == AnswerRecord(None, False, "")
    assert store.answer_record("missing") is None
    asked.state = interaction_pb2.INTERACTION_STATE_RESOLVED
    store.save_interaction(asked, ("asked", "r"), b"digest")
    store.save_interaction(asked, ("asked", "r"))  # a later save keeps the digest
    store.flush()
    assert store.answer_record("asked") == AnswerRecord(b"digest", False, "")
    assert store.lost_interactions("r") == []
    store.lose_interactions("r")  # the attempt that asked both was lost
    store.save_interaction(an_interaction("again", 12), ("again", "r"))  # asked after
    store.asked_again(("other", "r"), "again")
    store.flush()
    [(lost, record)] = store.lost_interactions("r")
    assert lost.name == "interactions/asked" and record == AnswerRecord(b"digest", True, "")
    assert store.answer_record("other") == AnswerRecord(None, True, "again")
    assert store.answer_record("again") == AnswerRecord(None, False, "")


def test_delete_takes_everything_of_a_run_and_retention_sees_sizes(store: Store) -> None:
    for name, create_us in (("old", 1), ("new", 2)):
        store.save_run(a_run(name, create_us), name)
        store.append_event(name, an_event(name, 1))
        store.save_interaction(an_interaction(f"{name}-i", create_us), (f"{name}-i", name))
        store.save_artifact((name, "shot"), "image/png", bytes(100 * create_us))
    store.save_run(a_run("busy", 3, state=RUNNING), "busy")
    assert store.get_artifact("old", "shot") == ("image/png", 100)
    assert store.artifact_bytes() == 300
    usage = store.finished_runs_oldest_first(10)
    assert [(u.run_id, u.create_us, u.artifact_bytes) for u in usage] == [
        ("old", 1, 100),
        ("new", 2, 200),
    ]
    assert store.delete_run("old") == 100  # the bytes its artifacts weighed
    assert store.delete_run("old") is None
    assert store.get_run("old") is None and store.events_after("old", 0, 10) == []
    assert store.get_interaction("old-i") is None and store.get_artifact("old", "shot") is None
    assert store.artifact_bytes() == 200
    store.reclaim_space()


def test_what_was_written_before_close_is_there_after_reopening(
    store_backend: str, tmp_path: Path
) -> None:
    first = open_store(settings_for_tests(tmp_path))
    first.save_run(a_run("r", 1), "r")
    for sequence in range(1, 501):
        first.append_event("r", an_event("r", sequence))
    first.close()
    second = open_store(settings_for_tests(tmp_path))
    try:
        assert second.applied_migrations == []  # type: ignore[attr-defined]
        assert [e.sequence for e in second.last_events("r", 1)] == [500]
        assert len(second.events_after("r", 0, 1000)) == 500
    finally:
        second.close()


def test_artifact_bytes_round_trip_in_ranges_and_go_with_their_run(store: Store) -> None:
    data = os.urandom(600 * 1024 + 7)  # more than two of PostgreSQL's 256 KiB chunks
    store.save_run(a_run("r", 1), "r")
    store.save_artifact(("r", "big"), "application/pdf", data)
    store.save_artifact(("r", "empty"), "text/plain", b"")
    assert store.get_artifact("r", "big") == ("application/pdf", len(data))
    for offset, size in ((0, len(data)), (0, 10), (256 * 1024 - 3, 9), (len(data) - 5, 100)):
        assert store.read_artifact(("r", "big"), offset, size) == data[offset : offset + size]
    assert store.read_artifact(("r", "big"), len(data), 10) == b""
    assert store.read_artifact(("r", "empty"), 0, 10) == b""
    assert store.delete_run("r") == len(data)
    store.forget_artifacts("r")
    assert store.read_artifact(("r", "big"), 0, 10) == b""
    assert store.leftover_artifacts() == []


def test_on_postgresql_another_process_reads_the_artifact_bytes(postgres_url: str) -> None:
    owner, other = PostgresStore(postgres_url), PostgresStore(postgres_url)
    try:
        owner.save_run(a_run("r", 1, state=RUNNING), "r")
        owner.save_artifact(("r", "shot"), "image/jpeg", b"jpeg bytes")
        owner.flush()
        assert other.get_artifact("r", "shot") == ("image/jpeg", 10)
        assert other.read_artifact(("r", "shot"), 5, 100) == b"bytes"
    finally:
        owner.close()
        other.close()
    later = PostgresStore(postgres_url)  # the bytes outlive the process that wrote them
    try:
        assert later.read_artifact(("r", "shot"), 0, 4) == b"jpeg"
    finally:
        later.close()


def a_recipe(recipe_id: str, key: str = "k") -> Recipe:
    step = Step("click", {}, [["button", "Go"]], "http://a/", "f")
    return Recipe(key, "task", "http://a/", {}, [step], "answer", "complete", id=recipe_id)


def a_start(
    name: str, create_us: int, by: str = "ann", state: run_pb2.RunState = QUEUED
) -> run_pb2.Run:
    run = a_run(name, create_us, state, tenant="acme")
    run.created_by = by
    return run


async def test_a_request_id_names_one_run_of_its_principal_until_it_expires(store: Store) -> None:
    anns, bobs = (StartKey("acme", who, "rid", "digest", since_us=50) for who in ("ann", "bob"))
    any_room = ActiveLimits()
    assert await store.insert_run(a_start("a", 100), "a", any_room, anns) is None
    assert await store.insert_run(a_start("b", 101), "b", any_room, anns) == REQUEST_ID_TAKEN
    assert store.get_run("b") is None  # refused: nothing saved
    assert await store.find_start(anns) == KeyedRun("a", "digest")
    assert await store.insert_run(a_start("c", 102, "bob"), "c", any_room, bobs) is None
    later = StartKey("acme", "ann", "rid", "digest", since_us=200)  # a was created before
    assert await store.find_start(later) == KeyedRun("a", "digest")  # but is active: kept
    store.save_run(a_start("a", 100, state=SUCCEEDED), "a")
    store.flush()
    assert await store.find_start(later) is None  # ended and expired
    assert await store.insert_run(a_start("d", 201), "d", any_room, later) is None
    assert await store.find_start(later) == KeyedRun("d", "digest")
    store.save_run(a_start("c", 102, "bob", state=SUCCEEDED), "c")
    store.flush()
    assert await store.forget_request_ids(1_000) == 1  # c's: ended, created before; d is active
    assert await store.find_start(bobs) is None
    assert store.delete_run("d") is not None
    assert await store.find_start(later) is None  # a deleted run's id is free
    assert await store.run_saved("a") and not await store.run_saved("d")


def test_two_failures_retire_a_recipe_and_free_its_key(store: Store) -> None:
    recipes = RecipeStore(store)
    recipe = a_recipe("first")
    assert recipes.keep(recipe) and not recipes.keep(a_recipe("other"))
    assert recipes.active("k") == recipe
    recipes.replayed(recipe.id)
    assert recipes.failed(recipe.id) is False and recipes.failed(recipe.id) is True
    assert recipes.active("k") is None and recipes.counts(recipe.id) == (1, 2, True)
    assert recipes.keep(a_recipe("fresh"))
    assert recipes.active("k") == a_recipe("fresh")


def test_on_postgresql_recipes_are_shared_and_failures_at_once_all_count(
    postgres_url: str,
) -> None:
    stores = [PostgresStore(postgres_url) for _ in range(2)]
    first, second = (RecipeStore(store) for store in stores)
    try:
        assert first.keep(a_recipe("a", key="k1")) and not second.keep(a_recipe("b", key="k1"))
        assert second.active("k1") == a_recipe("a", key="k1")
        for number in range(20):  # many recipes, each failed once by each process at once
            first.keep(a_recipe(f"r{number}", key=f"key{number}"))
        gate = threading.Barrier(2)
        retired: list[list[bool]] = [[], []]

        def fail_all(recipes: RecipeStore, into: list[bool]) -> None:
            gate.wait()
            into.extend(recipes.failed(f"r{number}") for number in range(20))

        threads = [
            threading.Thread(target=fail_all, args=(recipes, into))
            for recipes, into in zip((first, second), retired, strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for number in range(20):  # neither count lost: each recipe failed twice, retired once
            assert first.counts(f"r{number}") == (0, 2, True)
            assert retired[0][number] or retired[1][number]
            assert first.active(f"key{number}") is None
    finally:
        for store in stores:
            store.close()


def test_on_postgresql_artifact_bytes_waiting_for_the_database_are_bounded(
    postgres_url: str,
) -> None:
    """While PostgreSQL is behind (here: a lock holds the writer back), artifacts beyond the
    backlog bound are refused rather than piling up in memory; once it catches up, accepted."""
    store = PostgresStore(postgres_url, artifact_backlog=1000)
    run = run_pb2.Run(name="runs/slow", state=run_pb2.RUN_STATE_RUNNING)
    store.save_run(run, "slow")
    store.flush()
    with psycopg.connect(postgres_url) as blocker:
        blocker.execute("LOCK TABLE artifact_chunks IN ACCESS EXCLUSIVE MODE")
        store.save_artifact(("slow", "first"), "image/jpeg", b"x" * 600)
        with pytest.raises(Unavailable) as refused:
            store.save_artifact(("slow", "second"), "image/jpeg", b"y" * 600)
        assert refused.value.reason == "STORE_BACKLOG"
    store.flush()  # the lock is gone: the first commits
    store.save_artifact(("slow", "third"), "image/jpeg", b"z" * 600)
    store.flush()
    assert store.get_artifact("slow", "first") == ("image/jpeg", 600)
    assert store.get_artifact("slow", "second") is None
    assert store.get_artifact("slow", "third") == ("image/jpeg", 600)
    store.close()


def test_replicas_of_one_database_read_one_shared_secret(two_stores: tuple[Store, Store]) -> None:
    first, second = two_stores
    made = first.shared_secret("signing key")
    assert made and len(made) >= 32 and second.shared_secret("signing key") == made
    assert second.shared_secret("another") not in (None, made)
