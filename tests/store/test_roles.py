"""OUTRIDER_ROLE: an API-only replica executes no run; every start it takes goes to the least busy
live worker, and the caller follows, cancels and answers the run through the API replica."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import grpc
import httpx
import psycopg
import pytest
import pytest_asyncio

from outrider.client.keys import append_key
from outrider.server.settings import Settings
from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.store.conftest import ReplicaStarter
from tests.support.harness import ServerProcess, eventually, rich_error
from tests.support.requests import automate_request, collect, names

CLUSTER = {"OUTRIDER_CLUSTER_SECRET": "roles-secret-" + "r" * 24}


class Tier:
    def __init__(self, api: ServerProcess, workers: list[ServerProcess], database: str) -> None:
        self.api, self.workers, self.database = api, workers, database
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{api.port}")
        self.runs = run_service_pb2_grpc.RunServiceStub(self.channel)


# the tests on `tier` share its replicas (each its own runs, ended before it returns); its
# channel lives on the module's event loop
ON_THE_MODULE_TIER = pytest.mark.asyncio(loop_scope="module")


@contextlib.asynccontextmanager
async def api_and_two_workers(start: ReplicaStarter, database: str) -> AsyncIterator[Tier]:
    workers = [start(OUTRIDER_ROLE="worker", **CLUSTER) for _ in range(2)]
    found = Tier(start(rest=True, OUTRIDER_ROLE="api", **CLUSTER), workers, database)
    try:
        yield found
    finally:
        await found.channel.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tier(start_module_replica: ReplicaStarter, module_database: str) -> AsyncIterator[Tier]:
    async with api_and_two_workers(start_module_replica, module_database) as found:
        yield found


@pytest.fixture
async def own_tier(start_replica: ReplicaStarter, postgres_url: str) -> AsyncIterator[Tier]:
    """A tier on a database of the test's own, for a test that counts every run in it."""
    async with api_and_two_workers(start_replica, postgres_url) as found:
        yield found


def executor_ports(url: str) -> dict[str, int]:
    """Run id -> gRPC port of the replica executing (or last executing) it."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT r.id, p.address FROM runs r JOIN replicas p ON p.owner = r.owner"
        ).fetchall()
    return {str(run_id): int(str(address).rsplit(":", 1)[1]) for run_id, address in rows}


@ON_THE_MODULE_TIER
async def test_runs_started_on_the_api_replica_execute_on_the_workers(tier: Tier) -> None:
    events = await collect(tier.runs.Automate(automate_request(steps=2)))
    assert names(events)[-2:] == ["complete", "done"]
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    held = []
    for _ in range(4):
        request = automate_request(steps=1, hold=True)
        created = await tier.runs.CreateRun(
            run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
        )
        held.append(created.run.name)
    ports = executor_ports(tier.database)
    worker_ports = sorted(w.port for w in tier.workers)
    assert tier.api.port not in ports.values()  # the API replica executed nothing
    spread = sorted(ports[name.removeprefix("runs/")] for name in held)
    assert spread == sorted(worker_ports * 2)  # least busy first: two runs on each worker
    for name in held:  # cancelled through the API replica, relayed to each run's worker
        cancelled = await tier.runs.CancelRun(run_service_pb2.CancelRunRequest(name=name))
        assert cancelled.run.state == run_pb2.RUN_STATE_CANCELLED


@ON_THE_MODULE_TIER
async def test_a_rest_idempotency_key_is_kept_through_the_relay(tier: Tier) -> None:
    """A REST key need not be a UUID: the worker takes the key the API replica checked."""
    body = {"task": "relayed key", "data": {"steps": 1}}
    headers = {"Idempotency-Key": f'"order-{uuid.uuid4().hex[:8]}"'}
    origin = f"http://127.0.0.1:{tier.api.rest_port}"
    answers = []
    async with httpx.AsyncClient(base_url=origin, headers=headers, timeout=60) as http:
        for _ in range(2):
            async with http.stream("POST", "/v1/automate", json=body) as response:
                assert response.status_code == 200, await response.aread()
                answers.append(response.headers)
                await response.aread()
    first, again = answers
    assert first["outrider-run"] == again["outrider-run"]
    assert "idempotent-replayed" not in first and again["idempotent-replayed"] == "true"


@ON_THE_MODULE_TIER
async def test_a_caller_leaving_cancels_its_run_on_the_worker(tier: Tier) -> None:
    stream = tier.runs.Automate(automate_request(cancel_on_disconnect=True, steps=1, hold=True))
    name = ""
    async for response in stream:
        if response.HasField("event"):
            name = response.event.run
            if names([response.event]) == ["agent:action"]:
                break
    stream.cancel()  # the caller goes away

    async def cancelled() -> bool:
        run = (await tier.runs.GetRun(run_service_pb2.GetRunRequest(name=name))).run
        return run.state == run_pb2.RUN_STATE_CANCELLED

    await eventually(cancelled, within=30)


async def test_an_api_replica_without_workers_refuses_starts(
    start_replica: Callable[..., ServerProcess],
) -> None:
    # a start waits up to two failover intervals for a worker's presence, then is refused
    api = start_replica(OUTRIDER_ROLE="api", OUTRIDER_FAILOVER_INTERVAL="0.5", **CLUSTER)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{api.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        request = automate_request(steps=1)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await runs.CreateRun(
                run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
            )
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    assert rich_error(refused.value).reason == "NO_WORKER"


async def test_a_start_relayed_to_a_worker_keeps_its_tenants_models(
    start_replica: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    """The worker reads no key file: the offer of the caller's tenant reaches it in the relay
    token, and it checks the start against that offer (not its own empty one) again."""
    scenario = tmp_path / "tiny.yaml"
    scenario.write_text("turns: []\n")
    keys = tmp_path / "keys.toml"
    key = append_key(keys, "ada", "gamma", ["runs.start", "runs.read"])
    with keys.open("a") as table:
        table.write(f'\n[tenants.gamma]\nmodels = {{ tiny = "scripted:{scenario}" }}\n')
    closed = {"OUTRIDER_SCRIPTED_MODEL_DIRS": "", **CLUSTER}  # no scenario folder for callers
    start_replica(OUTRIDER_ROLE="worker", **closed)
    api = start_replica(OUTRIDER_ROLE="api", OUTRIDER_KEYS_FILE=str(keys), **closed)
    bearer = (("authorization", f"Bearer {key}"),)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{api.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        request = automate_request(steps=1)
        request.options.model = "tiny"
        start = run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
        created = await runs.CreateRun(start, metadata=bearer)
        request.options.model = f"scripted:{scenario}"  # not offered to gamma by name
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await runs.CreateRun(
                run_service_pb2.CreateRunRequest(automate=request.params, options=request.options),
                metadata=bearer,
            )
    assert created.run.options.model == f"scripted:{scenario}"
    assert rich_error(refused.value).violations == {
        "options.model": "must name a model this server offers its callers: tiny"
    }


def test_the_api_role_needs_a_shared_store_and_the_cluster_secret(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="OUTRIDER_ROLE=api"):
        Settings(data_dir=tmp_path, role="api")
    with pytest.raises(ValueError, match="OUTRIDER_CLUSTER_SECRET"):
        Settings(data_dir=tmp_path, role="api", database_url="postgresql://x@localhost/db")


@ON_THE_MODULE_TIER
async def test_watching_through_the_api_replica_is_live(tier: Tier) -> None:
    request = automate_request(steps=20, interval=0.02)
    created = await tier.runs.CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    watched = await asyncio.wait_for(
        collect(
            tier.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=created.run.name))
        ),
        60,
    )
    assert [e.sequence for e in watched] == list(range(1, len(watched) + 1))
    assert names(watched)[-1] == "done"


async def test_the_cluster_limit_counts_runs_on_every_replica(
    start_replica: Callable[..., ServerProcess],
) -> None:
    env = {**CLUSTER, "OUTRIDER_CLUSTER_MAX_ACTIVE_RUNS": "2"}
    replicas = [start_replica(**env) for _ in range(2)]
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{r.port}") for r in replicas]
    try:
        stubs = [run_service_pb2_grpc.RunServiceStub(c) for c in channels]
        request = automate_request(steps=1, hold=True)
        create = run_service_pb2.CreateRunRequest(automate=request.params)
        for stub in stubs:  # one run on each replica: the cluster is full
            await stub.CreateRun(create)
        for stub in stubs:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.CreateRun(create)
            assert rich_error(refused.value).reason == "CLUSTER_BUSY"
    finally:
        for channel in channels:
            await channel.close()


async def test_a_refusal_relayed_from_a_worker_keeps_its_retry_delay(
    start_replica: Callable[..., ServerProcess],
) -> None:
    limits = {"OUTRIDER_CLUSTER_MAX_ACTIVE_RUNS": "1", "OUTRIDER_BUSY_RETRY_AFTER": "7"}
    start_replica(OUTRIDER_ROLE="worker", **CLUSTER, **limits)
    api = start_replica(OUTRIDER_ROLE="api", **CLUSTER, **limits)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{api.port}") as channel:
        stub = run_service_pb2_grpc.RunServiceStub(channel)
        request = automate_request(steps=1, hold=True)
        create = run_service_pb2.CreateRunRequest(automate=request.params)
        await stub.CreateRun(create)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.CreateRun(create)
    error = rich_error(refused.value)
    assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "CLUSTER_BUSY")
    assert error.retry_delay == 7.0  # the worker's hint, not one the relay made up


async def test_one_request_id_racing_on_every_replica_starts_one_run(own_tier: Tier) -> None:
    """The same start sent at the same moment to the API replica (relayed to a worker) and to
    both workers: one run, and every other answer is that run, marked as a replay."""
    request_id = str(uuid.uuid4())
    params = automate_request(steps=1).params
    request = run_service_pb2.CreateRunRequest(automate=params, request_id=request_id)
    replicas = (own_tier.api, *own_tier.workers)
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{r.port}") for r in replicas]

    async def start(channel: grpc.aio.Channel) -> tuple[str, bool]:
        call = run_service_pb2_grpc.RunServiceStub(channel).CreateRun(request)  # type: ignore[no-untyped-call]
        run = (await call).run
        metadata = dict(await call.initial_metadata())
        return run.name, metadata.get("outrider-idempotent-replayed") == "true"

    try:
        answers = await asyncio.gather(*(start(c) for c in channels for _ in range(4)))
    finally:
        for channel in channels:
            await channel.close()
    assert len({name for name, _ in answers}) == 1
    assert [replayed for _, replayed in answers].count(False) == 1
    with psycopg.connect(own_tier.database, autocommit=True) as conn:
        rows = conn.execute("SELECT id, request_id FROM runs").fetchall()
    assert rows == [(answers[0][0].removeprefix("runs/"), request_id)]
