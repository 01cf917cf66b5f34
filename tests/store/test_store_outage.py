"""Issue 23, item 6: what operators and watchers see while PostgreSQL is down, the same on every
replica. A run executes on A and is watched on A and on B. A short outage: both streams stay
open and go on gapless. A long one (past OUTRIDER_STORE_UNREADY_AFTER): both replicas report
not ready (grpc.health's RunService, InteractionService and BrowserControlService, REST
/healthz) while the process ("", liveness) serves on, and both streams end with
UNAVAILABLE STORE_UNAVAILABLE; once PostgreSQL is back both are ready again, and a client
resuming from its last sequence gets the rest of the run, gapless. The outage is in the
replicas' logs and metrics."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import httpx
import psycopg
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from outrider.v1 import run_event_pb2, run_service_pb2, run_service_pb2_grpc
from tests.conftest import HarnessFactory
from tests.support.harness import ServerProcess, eventually, rich_error
from tests.support.postgres import PostgresServer
from tests.support.requests import automate_request, read_until

RUNS = "outrider.v1.RunService"
INTERACTIONS = "outrider.v1.InteractionService"
BROWSERS = "outrider.v1.BrowserControlService"  # takeovers need the store too
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
ENV = {
    "OUTRIDER_STORE_UNREADY_AFTER": "5",
    "OUTRIDER_HEARTBEAT_INTERVAL": "0.5",
    "OUTRIDER_FAILOVER_INTERVAL": "1",
    "OUTRIDER_CLUSTER_SECRET": "outage-secret-" + "o" * 24,
}


@pytest.fixture
def database() -> Iterator[tuple[PostgresServer, str]]:
    server = PostgresServer(private=True)  # stopped and started by the test
    try:
        yield server, server.create_database()
    finally:
        server.close()


@dataclass
class Replica:
    process: ServerProcess
    channel: grpc.aio.Channel
    runs: run_service_pb2_grpc.RunServiceStub
    health: health_pb2_grpc.HealthStub

    async def status(self, service: str = "") -> int:
        request = health_pb2.HealthCheckRequest(service=service)
        return int((await self.health.Check(request, timeout=5)).status)

    async def http(self, path: str) -> tuple[int, str]:
        """Status and reason of a REST probe."""
        async with httpx.AsyncClient(timeout=5) as client:
            response = await client.get(f"http://127.0.0.1:{self.process.rest_port}{path}")
        return response.status_code, str(response.json().get("reason", ""))

    async def metrics(self) -> str:
        async with httpx.AsyncClient(timeout=5) as client:
            return (await client.get(f"http://127.0.0.1:{self.process.rest_port}/metrics")).text


@pytest.fixture
async def replicas(
    database: tuple[PostgresServer, str], tmp_path: Path
) -> AsyncIterator[list[Replica]]:
    started = []
    for index in range(2):
        process = ServerProcess(
            tmp_path / f"r{index}", rest=True, OUTRIDER_DATABASE_URL=database[1], **ENV
        )
        process.start()
        process.drain()
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{process.port}")
        started.append(
            Replica(
                process,
                channel,
                run_service_pb2_grpc.RunServiceStub(channel),
                health_pb2_grpc.HealthStub(channel),
            )
        )
    yield started
    for replica in started:
        await replica.channel.close()
        replica.process.close()


@dataclass
class Watcher:
    """Follows a run until its stream ends, keeping what it got and how it ended."""

    events: list[run_event_pb2.RunEvent] = field(default_factory=list)
    ended: grpc.aio.AioRpcError | None = None

    async def follow(self, stream: AsyncIterator[run_service_pb2.StreamRunEventsResponse]) -> None:
        try:
            async for response in stream:
                if response.HasField("event"):
                    self.events.append(response.event)
        except grpc.aio.AioRpcError as error:
            self.ended = error


async def test_watchers_and_readiness_through_short_and_long_outages(
    database: tuple[PostgresServer, str], replicas: list[Replica]
) -> None:
    server, _ = database
    a, b = replicas
    request = automate_request(steps=120, interval=0.08)
    created = await a.runs.CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    name = created.run.name
    watchers = [Watcher(), Watcher()]
    tasks = [
        asyncio.create_task(
            w.follow(r.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name)))
        )
        for w, r in zip(watchers, replicas, strict=True)
    ]
    await eventually(lambda: all(len(w.events) >= 10 for w in watchers), within=30)

    await asyncio.to_thread(server.stop)  # a short outage: streams wait it out
    await asyncio.to_thread(server.start)
    counts = [len(w.events) for w in watchers]
    pairs = list(zip(watchers, counts, strict=True))
    await eventually(lambda: all(len(w.events) > c + 10 for w, c in pairs), 30)
    assert not any(task.done() for task in tasks)
    # The presence keeper counted this outage and has taken its presence back before the next
    # one, so each outage counts as a presence lost of its own.
    await eventually(lambda: presence_changes(a, "retaken", at_least=1), within=30)

    await asyncio.to_thread(server.stop)  # a long one: past the bound
    await asyncio.wait_for(asyncio.gather(*tasks), 30)
    for watcher in watchers:  # the same on both replicas
        assert watcher.ended is not None
        ended = rich_error(watcher.ended)
        assert ended.code == grpc.StatusCode.UNAVAILABLE and ended.reason == "STORE_UNAVAILABLE"
    for replica in replicas:
        await eventually(lambda r=replica: not_ready(r), within=5)
        assert await replica.status() == SERVING  # the process: alive all along

    await asyncio.to_thread(server.start)
    for replica in replicas:
        await eventually(lambda r=replica: ready(r), within=30)
    last = watchers[1].events[-1].sequence
    resumed = b.runs.StreamRunEvents(
        run_service_pb2.StreamRunEventsRequest(name=name, after_sequence=last)
    )
    rest = await asyncio.wait_for(read_until(resumed, "done"), 60)
    seen = watchers[1].events + rest
    assert [e.sequence for e in seen] == list(range(1, len(seen) + 1))
    for watcher in watchers:  # what each got before it ended: a gapless prefix
        assert [e.sequence for e in watcher.events] == list(range(1, len(watcher.events) + 1))
    scraped = await a.metrics()
    assert counter(scraped, 'outrider_presence_changes_total{change="lost"}') >= 2
    assert counter(scraped, 'outrider_presence_changes_total{change="retaken"}') >= 2
    assert counter(scraped, "outrider_store_unreachable_seconds_total") > 3
    assert counter(scraped, "outrider_store_unreachable") == 0
    assert "PostgreSQL unreachable" in "".join(a.process.tail)
    assert "presence taken back after" in "".join(a.process.tail)


async def not_ready(replica: Replica) -> bool:
    answers, browsers = await replica.status(INTERACTIONS), await replica.status(BROWSERS)
    runs, rest = await replica.status(RUNS), await replica.http("/healthz")
    return runs == answers == browsers == NOT_SERVING and rest == (503, "STORE_UNREACHABLE")


async def ready(replica: Replica) -> bool:
    runs, rest = await replica.status(RUNS), await replica.http("/healthz")
    return runs == SERVING and rest == (200, "")


async def presence_changes(replica: Replica, change: str, at_least: int) -> bool:
    """Whether the replica has counted `change` at least `at_least` times; a series not counted
    yet is not in /metrics at all."""
    series = f'outrider_presence_changes_total{{change="{change}"}}'
    scraped = await replica.metrics()
    return series in scraped and counter(scraped, series) >= at_least


def counter(scraped: str, series: str) -> float:
    found = re.search(rf"^{re.escape(series)} (\S+)$", scraped, re.MULTILINE)
    assert found, f"{series} is not in /metrics"
    return float(found.group(1))


async def test_an_outage_leaves_no_task_failure_unretrieved(
    database: tuple[PostgresServer, str],
    make_harness: HarnessFactory,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Starts (with and without a request id) sent while PostgreSQL holds every write to `runs`
    are answered UNAVAILABLE START_NOT_CONFIRMED; then PostgreSQL goes down, and the saves they
    left behind fail, later, with nobody waiting for them. Their failures are handled: asyncio
    never reports a task exception nobody retrieved."""
    server, url = database
    harness = await make_harness(database_url=url, failover_interval=0)
    caplog.set_level(logging.ERROR, logger="asyncio")
    starts = [
        harness.runs.CreateRun(
            run_service_pb2.CreateRunRequest(
                automate=automate_request(steps=1).params, request_id=request_id
            )
        )
        for request_id in ("", "", str(uuid.uuid4()))
    ]
    holder = psycopg.connect(url)
    holder.execute("LOCK TABLE runs IN ACCESS EXCLUSIVE MODE")
    answers = await asyncio.gather(*starts, return_exceptions=True)
    for answer in answers:
        assert isinstance(answer, grpc.aio.AioRpcError), answer
        assert rich_error(answer).reason == "START_NOT_CONFIRMED", answer
    await asyncio.to_thread(server.stop)  # the held saves fail now, their callers gone
    holder.close()
    await eventually(lambda: harness.server.runs.active_count == 0, within=60)
    gc.collect()  # a task is reported when it is collected
    await asyncio.to_thread(server.start)
    await eventually(lambda: harness.server.store.unreachable_for() == 0, within=30)
    created = await harness.runs.CreateRun(  # a start once it is back is saved
        run_service_pb2.CreateRunRequest(automate=automate_request(steps=1).params)
    )
    assert created.run.name
    gc.collect()
    await asyncio.sleep(0)  # lets the loop run the reports it scheduled
    unretrieved = [r.getMessage() for r in caplog.records if "never retrieved" in r.getMessage()]
    assert unretrieved == []
