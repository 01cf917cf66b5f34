"""DeleteRun and the retention sweep: a finished run goes with its events, interactions and
artifact files; active runs are refused; the disk stays bounded under an artifact cap."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import grpc
import pytest

from outrider.server.core import clock
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2, run_pb2, run_service_pb2, session_service_pb2
from tests.conftest import HarnessFactory
from tests.sessions.support import create, sessions_stub
from tests.support.harness import Harness, eventually, rich_error, start_harness, stop_harness
from tests.support.requests import automate_request, collect, names
from tests.support.script_agent import ARTIFACT_BYTES
from tests.support.store_rows import artifact_bytes_kept, count_rows


async def finished_run(harness: Harness, **plan: Any) -> list[str]:
    """Runs to the end; returns [run name, artifact names...]."""
    events = await collect(harness.runs.Automate(automate_request(**plan)))
    assert names(events)[-1] == "done"
    return [events[0].run, *sorted({e.artifact for e in events if e.artifact})]


async def older_than(harness: Harness, name: str, seconds: float) -> None:
    """Returns once the run was created more than `seconds` ago (by the server's clock)."""
    run = (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=name))).run
    born_us = run.create_time.ToMicroseconds()
    await eventually(lambda: clock.now_us() - born_us > seconds * 1_000_000)


def delete(harness: Harness, name: str) -> Awaitable[run_service_pb2.DeleteRunResponse]:
    call: Awaitable[run_service_pb2.DeleteRunResponse]
    call = harness.runs.DeleteRun(run_service_pb2.DeleteRunRequest(name=name))
    return call


async def error_of(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


def checkpointed_size(database: Path) -> int:
    """The database file's size once its write-ahead log is copied in: the store checkpoints
    from a thread of its own, so the file alone lags the data by up to that thread's interval."""
    with contextlib.closing(sqlite3.connect(database, timeout=10)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    return database.stat().st_size


async def interactions_of(harness: Harness, name: str) -> int:
    every_state = [ip.INTERACTION_STATE_PENDING, ip.INTERACTION_STATE_RESOLVED]
    every_state += [ip.INTERACTION_STATE_EXPIRED, ip.INTERACTION_STATE_CANCELLED]
    request = interaction_service_pb2.ListInteractionsRequest(run=name, states=every_state)
    return len((await harness.interactions.ListInteractions(request)).interactions)


async def test_delete_removes_the_run_its_events_interactions_and_artifacts(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(interaction_ttl=0.3)  # the form request expires unanswered
    name, artifact = await finished_run(harness, steps=2, artifact=True, ask_input=True)
    assert await interactions_of(harness, name) == 1
    kept, _ = await finished_run(harness, steps=1, artifact=True)
    settings = harness.server.settings
    harness.server.store.flush()
    assert artifact_bytes_kept(settings).get(name[5:]) == len(ARTIFACT_BYTES)

    deleted = await delete(harness, name)
    assert deleted.run.name == name and deleted.run.state == run_pb2.RUN_STATE_SUCCEEDED
    assert deleted.freed_artifact_bytes == len(ARTIFACT_BYTES)
    assert name[5:] not in artifact_bytes_kept(settings)
    assert not (settings.artifacts_dir / name[5:]).exists()

    for call in (
        harness.runs.GetRun(run_service_pb2.GetRunRequest(name=name)),
        collect(harness.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))),
        collect(harness.runs.ReadArtifact(run_service_pb2.ReadArtifactRequest(name=artifact))),
        delete(harness, name),  # not idempotent: the second delete finds nothing
    ):
        assert (await error_of(call)).code() == grpc.StatusCode.NOT_FOUND
    assert await interactions_of(harness, name) == 0
    remaining = (await harness.runs.ListRuns(run_service_pb2.ListRunsRequest())).runs
    assert [r.name for r in remaining] == [kept]
    for table in ("events", "interactions", "artifacts"):
        assert count_rows(settings, table, name[5:]) == 0, table


async def test_an_active_run_is_refused_and_left_intact(harness: Harness) -> None:
    call = harness.runs.Automate(automate_request(steps=1, hold=True))
    name = (await call.read()).event.run
    refused = await error_of(delete(harness, name))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert rich_error(refused).reason == "RUN_ACTIVE"
    assert "cancel it" in (refused.details() or "")
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=name))
    assert (await delete(harness, name)).run.state == run_pb2.RUN_STATE_CANCELLED
    call.cancel()


@pytest.mark.parametrize("bad", ["", "runs/", "runs/UPPER", "interactions/abc"])
async def test_a_malformed_name_is_invalid_argument(harness: Harness, bad: str) -> None:
    error = await error_of(delete(harness, bad))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "name" in rich_error(error).violations


async def test_a_stream_replaying_a_run_that_gets_deleted_ends_out_of_range(
    harness: Harness,
) -> None:
    name, *_ = await finished_run(harness, steps=1500)
    stream = harness.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))
    first = await stream.read()
    assert first.event.sequence == 1
    await delete(harness, name)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        while (response := await stream.read()) is not grpc.aio.EOF:
            assert response.event.sequence < 3003  # never the terminal events: they are gone
    assert caught.value.code() == grpc.StatusCode.OUT_OF_RANGE
    assert rich_error(caught.value).reason == "RUN_DELETED"


async def test_runs_past_the_age_limit_are_purged_but_active_ones_are_not(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(retention=0.2, retention_interval=3600)
    old, _ = await finished_run(harness, steps=1, artifact=True)
    await older_than(harness, old, 0.2)  # the finished run is past the limit
    call = harness.runs.Automate(automate_request(steps=1, hold=True))
    active = (await call.read()).event.run
    await older_than(harness, active, 0.2)  # the active run too, and must stay

    result = await harness.server.retention.sweep()
    assert result.runs == 1 and result.freed_bytes == len(ARTIFACT_BYTES)
    remaining = (await harness.runs.ListRuns(run_service_pb2.ListRunsRequest())).runs
    assert [r.name for r in remaining] == [active] and old != active
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=active))
    assert (await harness.server.retention.sweep()).runs == 1
    call.cancel()


async def test_ended_sessions_past_the_age_limit_are_purged_but_live_ones_are_not(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(retention=0.2, retention_interval=3600)
    ended = await create(harness.channel, idle=60, life=120)
    live = await create(harness.channel, idle=60, life=120)
    stub = sessions_stub(harness.channel)
    await stub.EndSession(session_service_pb2.EndSessionRequest(name=ended.name))
    await eventually(lambda: clock.now_us() - live.create_time.ToMicroseconds() > 200_000)

    assert (await harness.server.retention.sweep()).sessions == 1
    gone = await error_of(stub.GetSession(session_service_pb2.GetSessionRequest(name=ended.name)))
    assert gone.code() == grpc.StatusCode.NOT_FOUND
    listed = (await stub.ListSessions(session_service_pb2.ListSessionsRequest())).sessions
    assert [s.name for s in listed] == [live.name]
    assert (await harness.server.retention.sweep()).sessions == 0


async def test_disk_stays_bounded_under_an_artifact_cap(make_harness: HarnessFactory) -> None:
    cap = 3 * len(ARTIFACT_BYTES)
    harness = await make_harness(retention=0, retention_artifact_bytes=cap, retention_interval=0.05)
    settings = harness.server.settings
    database = harness.server.settings.database_path
    sqlite = harness.server.settings.database_url is None

    async def run_many(count: int) -> None:
        for _ in range(count):
            await finished_run(harness, steps=20, artifact=True)

    async def within_cap() -> bool:
        return sum(artifact_bytes_kept(settings).values()) <= cap

    await run_many(20)
    await eventually(within_cap)
    harness.server.store.flush()
    size_after_20 = checkpointed_size(database) if sqlite else 0
    await run_many(40)
    await eventually(within_cap)
    harness.server.store.flush()
    if sqlite:  # PostgreSQL's space is autovacuum's to reuse, on its own schedule
        # Pages of purged runs are reused (and given back), so twice the runs do not grow the file.
        assert checkpointed_size(database) <= size_after_20 + 64 * 1024
    runs = (await harness.runs.ListRuns(run_service_pb2.ListRunsRequest())).runs
    assert 1 <= len(runs) <= 3  # only the newest runs fit under the cap
    assert len(artifact_bytes_kept(settings)) == len(runs)


# SQLite only: PostgreSQL deletes a run's artifact bytes with its rows, none can be orphaned.
@pytest.mark.parametrize("store_backend", ["sqlite"], indirect=True)
async def test_orphaned_artifact_folders_are_removed_at_start(
    tmp_path: Path, store_backend: str
) -> None:
    first = await start_harness(tmp_path)
    try:
        name, _ = await finished_run(first, steps=1, artifact=True)
    finally:
        await stop_harness(first)
    orphan = tmp_path / "artifacts" / "0123456789abcdef"  # as a crash mid-delete leaves it
    orphan.mkdir()
    (orphan / "leftover").write_bytes(b"x" * 100)
    second = await start_harness(tmp_path)
    try:
        await eventually(lambda: not orphan.exists())
        assert (tmp_path / "artifacts" / name.removeprefix("runs/")).is_dir()
    finally:
        await stop_harness(second)
