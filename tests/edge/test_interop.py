"""Interop details other clients rely on, on both edges of one server with a key file: the
`Bearer` scheme in any case (RFC 9110), health's List as open as Check and Watch, and page tokens
bound to the filters of the call that got them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from outrider.server.core.errors import InvalidArgument
from outrider.server.core.paging import PageTokens
from outrider.v1 import run_pb2
from outrider.v1 import run_service_pb2 as rs
from tests.security.tenants import CALLER, Edges, Keys, open_edges
from tests.security.test_quotas import create
from tests.support.harness import rich_error


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Edges, str]]:
    keys = Keys(tmp_path / "keys.toml")
    key = keys.add("caller", "t", CALLER)
    async for edges in open_edges(tmp_path / "data", keys_file=keys.file):
        yield edges, key


async def test_the_bearer_scheme_is_case_insensitive_on_both_edges(
    served: tuple[Edges, str],
) -> None:
    edges, key = served
    listing = rs.ListRunsRequest()
    async with httpx.AsyncClient(base_url=edges.origin) as http:
        for header in (f"bearer {key}", f"BEARER {key}", f"bEaReR   {key}"):
            listed = await edges.runs.ListRuns(listing, metadata=(("authorization", header),))
            assert list(listed.runs) == []
            response = await http.get("/v1/runs", headers={"Authorization": header})
            assert response.status_code == 200, (header, response.text)
        for header in (f"Basic {key}", f"Bearer{key}", "bearer wrong-key"):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await edges.runs.ListRuns(listing, metadata=(("authorization", header),))
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED, header
            response = await http.get("/v1/runs", headers={"Authorization": header})
            assert response.status_code == 401, header


async def test_health_list_is_open_like_check_and_watch(served: tuple[Edges, str]) -> None:
    edges, _ = served
    health = health_pb2_grpc.HealthStub(edges.channel)  # type: ignore[no-untyped-call]
    listed = await health.List(health_pb2.HealthListRequest())  # no credentials
    serving = health_pb2.HealthCheckResponse.SERVING
    assert {name: s.status for name, s in listed.statuses.items()} == {
        "": serving,
        "outrider.v1.RunService": serving,
        "outrider.v1.InteractionService": serving,
        "outrider.v1.BrowserControlService": serving,
        "outrider.v1.SessionService": serving,
        "outrider.v1.ProfileService": serving,
        "outrider.v1.CredentialService": serving,
        "outrider.v1.WebhookService": serving,
    }
    await edges.case.grpc.health.enter_graceful_shutdown()
    listed = await health.List(health_pb2.HealthListRequest())
    assert {s.status for s in listed.statuses.values()} == {
        health_pb2.HealthCheckResponse.NOT_SERVING
    }


async def test_a_page_token_is_refused_with_other_filters(served: tuple[Edges, str]) -> None:
    edges, key = served
    auth = (("authorization", f"Bearer {key}"),)
    for _ in range(3):
        await edges.runs.CreateRun(create(steps=0), metadata=auth)
    kind = run_pb2.RUN_KIND_AUTOMATE
    first = await edges.runs.ListRuns(rs.ListRunsRequest(page_size=1, kind=kind), metadata=auth)
    token = first.next_page_token
    assert token
    same = rs.ListRunsRequest(page_size=2, page_token=token, kind=kind)  # another size is fine
    assert len((await edges.runs.ListRuns(same, metadata=auth)).runs) == 2
    others = (
        rs.ListRunsRequest(page_token=token),
        rs.ListRunsRequest(page_token=token, kind=run_pb2.RUN_KIND_RESEARCH),
        rs.ListRunsRequest(page_token=token, kind=kind, states=[run_pb2.RUN_STATE_RUNNING]),
    )
    for request in others:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await edges.runs.ListRuns(request, metadata=auth)
        error = rich_error(caught.value)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "other filters" in error.violations["page_token"]
    async with httpx.AsyncClient(
        base_url=edges.origin, headers={"Authorization": auth[0][1]}
    ) as http:
        refused = await http.get("/v1/runs", params={"pageToken": token})
        assert refused.status_code == 400 and "other filters" in refused.text
        kept = await http.get("/v1/runs", params={"pageToken": token, "kind": "automate"})
        assert kept.status_code == 200, kept.text


def test_tokens_of_earlier_versions_page_unfiltered_calls_only() -> None:
    """Tokens issued before filters were bound named none: they page an unfiltered call still."""
    tokens = PageTokens(b"k" * 32)
    old = tokens.encode("runs", 5, "abc")
    assert old.split(".")[0] == "WzUsImFiYyJd"  # [5,"abc"], as before
    assert tokens.decode("runs", old) == (5, "abc")
    with pytest.raises(InvalidArgument):
        tokens.decode("runs", old, filters="kind=1")
    bound = tokens.encode("runs", 5, "abc", "kind=1")
    assert tokens.decode("runs", bound, filters="kind=1") == (5, "abc")
