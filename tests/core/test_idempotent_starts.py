"""Idempotent starts on every start RPC and on REST, on both store backends: the same principal's
same request id and request give the same run (a replay, marked as one), a different request is
refused, keys are per principal and tenant, racing duplicates make one run, and an expired key or
a deleted run's key starts a new run."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import struct_pb2

from outrider.server.core import clock
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import params_pb2, run_pb2
from outrider.v1 import run_service_pb2 as rs
from tests.rest.support import sse_events
from tests.security.tenants import Edges, Keys, open_edges, two_tenants
from tests.support.harness import eventually, rich_error
from tests.support.requests import collect

REPLAYED = "outrider-idempotent-replayed"


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    return two_tenants(tmp_path)


@pytest.fixture
async def edges(keys: Keys, tmp_path: Path) -> AsyncIterator[Edges]:
    async for opened in open_edges(tmp_path / "data", keys_file=keys.file):
        yield opened


def params(task: str = "idempotent", **plan: Any) -> params_pb2.AutomateParams:
    data = struct_pb2.Struct()
    data.update({"steps": 1, **plan})
    return params_pb2.AutomateParams(task=task, data=data)


async def create(
    edges: Edges, keys: Keys, who: str, request_id: str, task: str = "idempotent", **plan: Any
) -> tuple[run_pb2.Run, bool]:
    """The run CreateRun answers, and whether it is marked as a replay."""
    request = rs.CreateRunRequest(automate=params(task, **plan), request_id=request_id)
    call = edges.runs.CreateRun(request, metadata=keys.bearer(who))
    response = await call
    replayed = dict(await call.initial_metadata()).get(REPLAYED) == "true"
    return response.run, replayed


async def runs_of(edges: Edges, keys: Keys) -> list[str]:
    """Every run's name, as the admin sees them (server-side truth)."""
    listed = await edges.runs.ListRuns(
        rs.ListRunsRequest(page_size=100), metadata=keys.bearer("root")
    )
    return [run.name for run in listed.runs]


async def test_every_start_rpc_with_the_same_request_id_returns_the_same_run(
    edges: Edges, keys: Keys
) -> None:
    request_id = str(uuid.uuid4())
    first, replayed = await create(edges, keys, "alpha-1", request_id)
    assert not replayed
    again, replayed = await create(edges, keys, "alpha-1", request_id.upper())  # same UUID
    assert replayed and again.name == first.name

    stream = edges.runs.Automate(
        rs.AutomateRequest(params=params(), request_id=request_id), metadata=keys.bearer("alpha-1")
    )
    metadata = dict(await stream.initial_metadata())
    events = await collect(stream)
    assert metadata["outrider-run"] == first.name and metadata[REPLAYED] == "true"
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))  # from sequence 1
    assert {e.run for e in events} == {first.name}

    start = isv.InteractStart(automate=params(), request_id=request_id)
    requests = [isv.InteractRequest(start=start)]
    interact = edges.interactions.Interact(_then_wait(requests), metadata=keys.bearer("alpha-1"))
    metadata = dict(await interact.initial_metadata())
    assert metadata["outrider-run"] == first.name and metadata[REPLAYED] == "true"
    interact.cancel()
    assert await runs_of(edges, keys) == [first.name]


async def _then_wait(requests: list[isv.InteractRequest]) -> AsyncIterator[isv.InteractRequest]:
    for request in requests:
        yield request
    await asyncio.Event().wait()  # the caller cancels the call


async def test_the_same_request_id_with_another_request_is_already_exists(
    edges: Edges, keys: Keys
) -> None:
    request_id = str(uuid.uuid4())
    first, _ = await create(edges, keys, "alpha-1", request_id, password="one")
    # secret values are masked before the comparison (never stored, not even hashed)
    same, replayed = await create(edges, keys, "alpha-1", request_id, password="two")
    assert replayed and same.name == first.name
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await create(edges, keys, "alpha-1", request_id, task="something else")
    error = rich_error(refused.value)
    assert error.code == grpc.StatusCode.ALREADY_EXISTS
    assert error.reason == "IDEMPOTENCY_KEY_REUSED" and first.name in error.message
    assert await runs_of(edges, keys) == [first.name]


async def test_keys_are_scoped_per_principal_and_tenant(edges: Edges, keys: Keys) -> None:
    request_id = str(uuid.uuid4())
    made = {who: (await create(edges, keys, who, request_id))[0].name for who in keys.keys}
    assert len(set(made.values())) == len(keys.keys)  # five principals, five runs
    again, replayed = await create(edges, keys, "beta-2", request_id)
    assert replayed and again.name == made["beta-2"]


async def test_a_request_id_must_be_a_uuid(edges: Edges, keys: Keys) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await create(edges, keys, "alpha-1", "order-42")
    error = rich_error(refused.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT and "request_id" in error.violations
    start = isv.InteractStart(automate=params(), request_id="not a uuid")
    interact = edges.interactions.Interact(
        _then_wait([isv.InteractRequest(start=start)]), metadata=keys.bearer("alpha-1")
    )
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await interact.read()
    assert "start.request_id" in rich_error(refused.value).violations
    assert await runs_of(edges, keys) == []


async def test_racing_duplicates_start_one_run(edges: Edges, keys: Keys) -> None:
    request_id = str(uuid.uuid4())
    started = await asyncio.gather(*(create(edges, keys, "alpha-1", request_id) for _ in range(12)))
    assert len({run.name for run, _ in started}) == 1
    assert sum(not replayed for _, replayed in started) == 1  # one started it, the rest replayed
    assert await runs_of(edges, keys) == [started[0][0].name]


async def test_rest_idempotency_key_replays_the_stream_and_refuses_another_body(
    edges: Edges, keys: Keys
) -> None:
    body = {"task": "idempotent", "data": {"steps": 1}}
    headers = keys.header("alpha-1") | {"Idempotency-Key": '"rest-order-7"'}
    async with httpx.AsyncClient(base_url=edges.origin, headers=headers, timeout=30) as http:
        streams = []
        for _ in range(2):
            async with http.stream("POST", "/v1/automate", json=body) as response:
                blocks = [block async for block in sse_events(response)]
                streams.append((response.headers, [block.id for block in blocks]))
        reused = await http.post("/v1/automate", json={**body, "task": "another"})
        bare = await http.post(
            "/v1/automate", json=body, headers={"Idempotency-Key": "rest-order-7"}
        )
        malformed = await http.post("/v1/automate", json=body, headers={"Idempotency-Key": '"open'})
    (first, first_ids), (second, second_ids) = streams
    assert first["outrider-run"] == second["outrider-run"]
    assert "idempotent-replayed" not in first and second["idempotent-replayed"] == "true"
    assert second_ids == first_ids and first_ids[0] == "1"  # the same events from the start
    assert reused.status_code == 422
    assert reused.json()["error"]["reason"] == "IDEMPOTENCY_KEY_REUSED"
    assert bare.status_code == 200 and bare.headers["idempotent-replayed"] == "true"
    assert malformed.status_code == 400
    assert "Idempotency-Key" in {v["field"] for v in malformed.json()["error"]["fieldViolations"]}
    assert await runs_of(edges, keys) == [first["outrider-run"]]


async def test_without_a_key_every_rest_start_is_a_new_run(edges: Edges, keys: Keys) -> None:
    body = {"task": "plain", "data": {"steps": 0}}
    async with httpx.AsyncClient(base_url=edges.origin, headers=keys.header("alpha-1")) as http:
        for _ in range(2):
            async with http.stream("POST", "/v1/automate", json=body) as response:
                assert "idempotent-replayed" not in response.headers
                await response.aread()
    assert len(await runs_of(edges, keys)) == 2


async def test_an_expired_key_or_a_deleted_run_starts_a_new_run(keys: Keys, tmp_path: Path) -> None:
    request_id = str(uuid.uuid4())
    async for edges in open_edges(tmp_path / "short", keys_file=keys.file, idempotency_ttl=0.3):
        held, _ = await create(edges, keys, "alpha-1", request_id, hold=True)
        window_ends_us = held.create_time.ToMicroseconds() + 300_000
        await eventually(lambda w=window_ends_us: clock.now_us() > w)  # but the run is active
        again, replayed = await create(edges, keys, "alpha-1", request_id, hold=True)
        assert replayed and again.name == held.name
        cancel = rs.CancelRunRequest(name=held.name)
        await edges.runs.CancelRun(cancel, metadata=keys.bearer("alpha-1"))
        fresh, replayed = await create(edges, keys, "alpha-1", request_id)  # ended and expired
        assert not replayed and fresh.name != held.name
        await _until_ended(edges, keys, fresh.name)
        delete = rs.DeleteRunRequest(name=fresh.name)
        await edges.runs.DeleteRun(delete, metadata=keys.bearer("alpha-1"))
        third, replayed = await create(edges, keys, "alpha-1", request_id)
        assert not replayed and third.name not in (held.name, fresh.name)
        await _until_ended(edges, keys, third.name)
        # held's key was freed by fresh's start (lazily); third's goes in the sweep's way
        assert await edges.case.grpc.store.forget_request_ids(clock.now_us()) == 1


async def _until_ended(edges: Edges, keys: Keys, name: str) -> None:
    request = rs.StreamRunEventsRequest(name=name)
    await collect(edges.runs.StreamRunEvents(request, metadata=keys.bearer("root")))
