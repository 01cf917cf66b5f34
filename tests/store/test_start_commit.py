"""A start answered with an error never executes unless its record committed (issue 23): with
PostgreSQL holding every insert into `runs` back (a lock, as a stalled primary would), a start is
answered UNAVAILABLE after START_WAIT and its run does nothing meanwhile, counted at the site it
would visit. Once the inserts go through late, the run with a request id executes once and a
retry with the same id returns it; the run without one is ended without ever executing."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import psycopg
import pytest
from google.protobuf import struct_pb2

from outrider.server.core.runs.idempotent_starts import START_WAIT
from outrider.server.core.storage.start_keys import FORGET_EXPIRED
from outrider.v1 import params_pb2, run_pb2
from outrider.v1 import run_service_pb2 as rs
from tests.conftest import HarnessFactory
from tests.support.harness import Harness, eventually, rich_error
from tests.support.hit_counter import hit_counter
from tests.support.postgres import waiting_for_locks


def visiting(url: str, request_id: str = "") -> rs.CreateRunRequest:
    data = struct_pb2.Struct()
    data.update({"visit": url, "steps": 1})
    automate = params_pb2.AutomateParams(task="visit once", data=data)
    return rs.CreateRunRequest(automate=automate, request_id=request_id)


def committed_runs(url: str) -> int:
    """Runs another session can read: only committed rows."""
    with psycopg.connect(url, autocommit=True) as reader:
        row = reader.execute("SELECT count(*) FROM runs").fetchone()
    assert row is not None
    return int(row[0])


async def ended(harness: Harness, name: str) -> run_pb2.Run:
    async def done() -> bool:
        run = (await harness.runs.GetRun(rs.GetRunRequest(name=name))).run
        return run.state not in (run_pb2.RUN_STATE_QUEUED, run_pb2.RUN_STATE_RUNNING)

    await eventually(done, within=30)
    return (await harness.runs.GetRun(rs.GetRunRequest(name=name))).run


@pytest.mark.timeout(180)
async def test_a_start_answered_unavailable_does_not_execute_while_uncommitted(
    postgres_url: str, make_harness: HarnessFactory
) -> None:
    harness = await make_harness(database_url=postgres_url)
    request_id = str(uuid.uuid4())
    with hit_counter() as site:
        keyed, plain = visiting(f"{site.url}/keyed", request_id), visiting(f"{site.url}/plain")
        with psycopg.connect(postgres_url) as blocker:
            blocker.execute("LOCK TABLE runs IN SHARE MODE")  # inserts wait; reads go on
            answers = await asyncio.gather(
                harness.runs.CreateRun(keyed),
                harness.runs.CreateRun(plain),
                return_exceptions=True,
            )
            for answer in answers:
                assert isinstance(answer, grpc.aio.AioRpcError), answer
                error = rich_error(answer)
                assert error.code == grpc.StatusCode.UNAVAILABLE
                assert error.reason == "START_NOT_CONFIRMED"
            assert "same request id" in rich_error(answers[0]).message  # the keyed one
            # both starts parked at the commit (the retention sweep's freeing of expired request
            # ids, an update of runs too, waits on the lock whenever it happens to run)
            await eventually(lambda: waiting_for_locks(postgres_url, FORGET_EXPIRED) == 2)
            assert site.hits == {}
            assert committed_runs(postgres_url) == 0
        # The lock is gone: both inserts commit now, late.
        retried = await harness.runs.CreateRun(keyed)  # the same start, sent again
        run = await ended(harness, retried.run.name)
        assert run.state == run_pb2.RUN_STATE_SUCCEEDED
        assert site.count("/keyed") == 1  # executed once: by the late commit, not the retry
        listed = (await harness.runs.ListRuns(rs.ListRunsRequest())).runs
        assert len(listed) == 2
        other = next(r for r in listed if r.name != run.name)
        other = await ended(harness, other.name)
        assert other.state == run_pb2.RUN_STATE_FAILED
        assert other.outcome.error_code == "START_NOT_CONFIRMED"
        assert site.count("/plain") == 0  # never executed


@pytest.mark.timeout(180)
async def test_a_start_with_a_request_id_is_answered_at_the_same_bound_while_the_store_hangs(
    postgres_url: str, make_harness: HarnessFactory
) -> None:
    """The lookup of the request id waits on a store that does not answer (every read of
    `runs` held, as by a hung primary): the start must still be answered UNAVAILABLE
    START_NOT_CONFIRMED within START_WAIT, as one without an id is, not at the client's
    deadline. A retry with the id once the store answers starts the run, once."""
    harness = await make_harness(database_url=postgres_url, failover_interval=0)
    request_id = str(uuid.uuid4())
    deadline = START_WAIT + 60  # the client's: far past the server's bound
    with hit_counter() as site:
        keyed, plain = visiting(f"{site.url}/keyed", request_id), visiting(f"{site.url}/plain")
        with psycopg.connect(postgres_url) as blocker:
            blocker.execute("LOCK TABLE runs IN ACCESS EXCLUSIVE MODE")  # reads wait too
            answers = await asyncio.gather(
                harness.runs.CreateRun(keyed, timeout=deadline),
                harness.runs.CreateRun(plain, timeout=deadline),
                return_exceptions=True,
            )
            for answer in answers:
                assert isinstance(answer, grpc.aio.AioRpcError), answer
                error = rich_error(answer)
                assert (error.code, error.reason) == (
                    grpc.StatusCode.UNAVAILABLE,
                    "START_NOT_CONFIRMED",
                ), error
            assert "started nothing" in rich_error(answers[0]).message
        retried = await harness.runs.CreateRun(keyed, timeout=deadline)
        run = await ended(harness, retried.run.name)
        assert run.state == run_pb2.RUN_STATE_SUCCEEDED
        assert site.count("/keyed") == 1
