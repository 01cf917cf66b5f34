"""Listing runs by task text (ListRunsRequest.task_contains, REST ?taskContains=): case-blind,
tenant-bound, combined with the other filters, paged; a rare text costs each call a bounded
scan, resumed by the page token."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import httpx
import pytest

from outrider.server.core.runs import search
from outrider.v1 import params_pb2, run_pb2
from outrider.v1 import run_service_pb2 as rs
from tests.security.tenants import CALLER, Edges, Keys, open_edges
from tests.support.harness import eventually


@pytest.fixture
async def edges(tmp_path: Path) -> AsyncIterator[tuple[Edges, Keys]]:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("alice", "alpha", CALLER)
    keys.add("bob", "beta", CALLER)
    async for opened in open_edges(tmp_path / "data", keys_file=keys.file):
        yield opened, keys


async def start(edges: Edges, keys: Keys, principal: str, task: str, research: bool = False) -> str:
    request = (
        rs.CreateRunRequest(research=params_pb2.ResearchParams(query=task))
        if research
        else rs.CreateRunRequest(automate=params_pb2.AutomateParams(task=task))
    )
    created = await edges.runs.CreateRun(request, metadata=keys.bearer(principal))
    return created.run.name


async def listed(
    edges: Edges, keys: Keys, principal: str = "alice", **query: object
) -> rs.ListRunsResponse:
    request = rs.ListRunsRequest(**query)  # type: ignore[arg-type]
    return await edges.runs.ListRuns(request, metadata=keys.bearer(principal))


async def test_task_text_is_matched_ignoring_case_within_the_tenant(
    edges: tuple[Edges, Keys],
) -> None:
    server, keys = edges
    oolong = await start(server, keys, "alice", "Find the price of Oolong tea")
    green = await start(server, keys, "alice", "Find the price of green tea")
    study = await start(server, keys, "alice", "Why is oolong tea oxidised?", research=True)
    await start(server, keys, "bob", "Find the price of oolong tea in beta")

    async def ended() -> bool:
        runs = (await listed(server, keys)).runs
        return all(r.HasField("end_time") for r in runs)

    await eventually(ended)
    found = await listed(server, keys, task_contains="OOLONG")
    assert [r.name for r in found.runs] == [study, oolong]  # newest first, beta's run unseen
    browser = await listed(server, keys, task_contains="oolong", kind=run_pb2.RUN_KIND_AUTOMATE)
    assert [r.name for r in browser.runs] == [oolong]
    first = await listed(server, keys, task_contains="price", page_size=1)
    assert [r.name for r in first.runs] == [green] and first.next_page_token
    second = await listed(
        server, keys, task_contains="price", page_size=1, page_token=first.next_page_token
    )
    assert [r.name for r in second.runs] == [oolong]
    async with httpx.AsyncClient(base_url=server.origin) as http:
        rest = await http.get("/v1/runs?taskContains=green", headers=keys.header("alice"))
        assert [r["name"] for r in rest.json()["runs"]] == [green]
        too_long = await http.get(
            f"/v1/runs?taskContains={'x' * 201}", headers=keys.header("alice")
        )
        assert too_long.status_code == 400
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await listed(server, keys, task_contains="x" * 201)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_rare_text_is_found_by_resuming_a_bounded_scan(
    edges: tuple[Edges, Keys], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, keys = edges
    needle = await start(server, keys, "alice", "The one with the needle")
    for n in range(7):
        await start(server, keys, "alice", f"Haystack {n}")
    monkeypatch.setattr(search, "SCAN_BUDGET", 3)
    monkeypatch.setattr(search, "_BATCH", 3)
    pages, token, calls = [], "", 0
    while True:
        response = await listed(server, keys, task_contains="needle", page_token=token)
        pages.append([r.name for r in response.runs])
        calls += 1
        token = response.next_page_token
        if not token:
            break
    assert calls == 3 and pages[:2] == [[], []]  # two short pages, each after 3 runs looked at
    assert pages[-1] == [needle]
