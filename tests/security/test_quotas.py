"""Per-principal quotas: concurrent runs and a start rate, apart from the server-wide limit. A
noisy tenant runs into its own limits while a quiet one still starts runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import httpx
from google.protobuf import struct_pb2

from outrider.v1 import params_pb2
from outrider.v1 import run_service_pb2 as rs
from tests.security.tenants import CALLER, Edges, Keys, open_edges
from tests.support.harness import RichError, rich_error


def create(**plan: Any) -> rs.CreateRunRequest:
    data = struct_pb2.Struct()
    data.update(plan)
    return rs.CreateRunRequest(automate=params_pb2.AutomateParams(task="quota", data=data))


async def start(edges: Edges, keys: Keys, who: str, **plan: Any) -> RichError | None:
    try:
        await edges.runs.CreateRun(create(**plan), metadata=keys.bearer(who))
    except grpc.aio.AioRpcError as error:
        return rich_error(error)
    return None


async def test_a_noisy_tenant_cannot_starve_a_quiet_one(tmp_path: Path) -> None:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("noisy", "noisy", CALLER, max_concurrent_runs=2)
    keys.add("quiet", "quiet", CALLER, max_concurrent_runs=2)
    async for edges in open_edges(tmp_path / "data", keys_file=keys.file, max_concurrent_runs=4):
        assert [await start(edges, keys, "noisy", hold=True) for _ in range(2)] == [None, None]
        for _ in range(3):
            refused = await start(edges, keys, "noisy", hold=True)
            assert refused is not None and refused.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert refused.reason == "PRINCIPAL_RUN_LIMIT" and refused.retry_delay
        async with httpx.AsyncClient(base_url=edges.origin, headers=keys.header("noisy")) as http:
            response = await http.post("/v1/automate", json={"task": "more"})
        assert response.status_code == 429 and int(response.headers["retry-after"]) >= 1
        assert response.json()["error"]["reason"] == "PRINCIPAL_RUN_LIMIT"
        assert [await start(edges, keys, "quiet", hold=True) for _ in range(2)] == [None, None]


async def test_start_rate_is_a_token_bucket_per_principal(tmp_path: Path) -> None:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("bursty", "noisy", CALLER, starts_per_minute=6, start_burst=2)
    keys.add("calm", "quiet", CALLER, starts_per_minute=6, start_burst=2)
    async for edges in open_edges(tmp_path / "data", keys_file=keys.file, max_concurrent_runs=8):
        assert [await start(edges, keys, "bursty", steps=0) for _ in range(2)] == [None, None]
        refused = await start(edges, keys, "bursty", steps=0)
        assert refused is not None and refused.reason == "PRINCIPAL_START_RATE"
        assert refused.retry_delay is not None and 0 < refused.retry_delay <= 10.0
        async with httpx.AsyncClient(base_url=edges.origin, headers=keys.header("bursty")) as http:
            response = await http.post("/v1/research", json={"query": "q"})
        assert response.status_code == 429
        assert response.json()["error"]["reason"] == "PRINCIPAL_START_RATE"
        assert [await start(edges, keys, "calm", steps=0) for _ in range(2)] == [None, None]


async def test_defaults_apply_to_keys_without_limits(tmp_path: Path) -> None:
    """OUTRIDER_PRINCIPAL_MAX_CONCURRENT_RUNS covers the OUTRIDER_API_KEYS shortcut too."""
    async for edges in open_edges(
        tmp_path / "data", api_keys=("k1", "k2"), principal_max_concurrent_runs=1
    ):
        for key, expected in (("k1", None), ("k1", "PRINCIPAL_RUN_LIMIT"), ("k2", None)):
            try:
                await edges.runs.CreateRun(
                    create(hold=True), metadata=(("authorization", f"Bearer {key}"),)
                )
                reason = None
            except grpc.aio.AioRpcError as error:
                reason = rich_error(error).reason
            assert reason == expected


async def test_a_start_refused_by_a_tenant_limit_spends_no_start_token(tmp_path: Path) -> None:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("slow", "noisy", CALLER, starts_per_minute=0.5, start_burst=2)
    async for edges in open_edges(
        tmp_path / "data", keys_file=keys.file, max_concurrent_runs=4, tenant_max_active_runs=1
    ):
        assert await start(edges, keys, "slow", hold=True) is None  # one token left
        for _ in range(3):  # each takes the last token, is refused, and gives it back
            refused = await start(edges, keys, "slow", hold=True)
            assert refused is not None and refused.reason == "TENANT_BUSY"
        listed = await edges.runs.ListRuns(rs.ListRunsRequest(), metadata=keys.bearer("slow"))
        await edges.runs.CancelRun(
            rs.CancelRunRequest(name=listed.runs[0].name), metadata=keys.bearer("slow")
        )
        assert await start(edges, keys, "slow", steps=0) is None  # the token was still there
