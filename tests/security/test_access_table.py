"""The access table names every RPC of both services and every REST route, and each entry is
enforced: a key without the scope is refused before anything happens."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from outrider.server.core.principals import Scope
from outrider.server.rest_edge.app import build_app
from outrider.server.security.access import GRPC_METHODS, OPEN, REST_ROUTES
from outrider.server.security.authn import Keyring
from outrider.v1 import (
    browser_control_service_pb2,
    credential_service_pb2,
    interaction_service_pb2,
    profile_service_pb2,
    run_service_pb2,
    session_service_pb2,
    webhook_service_pb2,
)
from outrider.v1 import run_service_pb2 as rs
from tests.security.tenants import CALLER, Edges, Keys, open_edges
from tests.security.test_quotas import create
from tests.support.harness import rich_error, settings_for_tests

SERVICES = (
    run_service_pb2.DESCRIPTOR.services_by_name["RunService"],
    interaction_service_pb2.DESCRIPTOR.services_by_name["InteractionService"],
    browser_control_service_pb2.DESCRIPTOR.services_by_name["BrowserControlService"],
    session_service_pb2.DESCRIPTOR.services_by_name["SessionService"],
    profile_service_pb2.DESCRIPTOR.services_by_name["ProfileService"],
    credential_service_pb2.DESCRIPTOR.services_by_name["CredentialService"],
    webhook_service_pb2.DESCRIPTOR.services_by_name["WebhookService"],
)
METHODS = {f"/{s.full_name}/{m.name}": m for s in SERVICES for m in s.methods}


def test_every_rpc_is_in_the_table() -> None:
    missing = set(METHODS) - set(GRPC_METHODS)
    assert not missing, f"RPCs without an access rule: {missing}"
    ours = {m for m in GRPC_METHODS if m.startswith("/outrider.")}
    assert ours == set(METHODS), f"rules for RPCs that do not exist: {ours - set(METHODS)}"
    assert all(GRPC_METHODS[m] != OPEN for m in METHODS)


def test_every_route_is_in_the_table(tmp_path: Path) -> None:
    # The console (mounted at /console) signs people in itself: tests/console covers it.
    settings = settings_for_tests(tmp_path, console=False)
    sessions = object()  # no route is called: the session routes need only be there
    app = build_app(None, settings, Keyring(settings), sessions)  # type: ignore[arg-type]
    routes = {
        (method, r.path) for r in app.routes for method in r.methods or () if method != "HEAD"
    }  # type: ignore[attr-defined]
    assert routes == set(REST_ROUTES), routes ^ set(REST_ROUTES)


@pytest.fixture
async def lacking(tmp_path: Path) -> AsyncIterator[tuple[Edges, Keys]]:
    """A key lacking each caller scope in turn, named after the scope it lacks."""
    keys = Keys(tmp_path / "keys.toml")
    for scope in CALLER:
        keys.add(f"no-{scope}", "t", [s for s in CALLER if s != scope])
    async for edges in open_edges(tmp_path / "data", keys_file=keys.file):
        yield edges, keys


async def call_raw(
    channel: grpc.aio.Channel, path: str, metadata: tuple[tuple[str, str], ...]
) -> None:
    """Calls `path` with an empty request message, in the method's own streaming shape."""
    method = METHODS[path]
    ident = lambda b: b  # noqa: E731 - bytes in, bytes out
    if method.client_streaming:  # refused on its metadata: nothing is written (a write racing
        # the refusal fails on the client's side as INTERNAL, grpc.aio)
        await channel.stream_stream(path, ident, ident)(metadata=metadata).read()
    elif method.server_streaming:
        async for _ in channel.unary_stream(path, ident, ident)(b"", metadata=metadata):
            pass
    else:
        await channel.unary_unary(path, ident, ident)(b"", metadata=metadata)


async def test_each_rpc_refuses_a_key_without_its_scope(lacking: tuple[Edges, Keys]) -> None:
    edges, keys = lacking
    for path in METHODS:
        need = GRPC_METHODS[path]
        assert isinstance(need, Scope)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call_raw(edges.channel, path, keys.bearer(f"no-{need.value}"))
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED, path
        assert rich_error(caught.value).reason == "MISSING_SCOPE"


async def test_each_route_refuses_a_key_without_its_scope(lacking: tuple[Edges, Keys]) -> None:
    edges, keys = lacking
    async with httpx.AsyncClient(base_url=edges.origin) as http:
        for (method, path), need in REST_ROUTES.items():
            if not isinstance(need, Scope):
                continue
            concrete = re.sub(r"\{\w+\}", "0123456789abcdef", path)
            response = await http.request(
                method, concrete, json={}, headers=keys.header(f"no-{need.value}")
            )
            assert response.status_code == 403, (method, path, response.text)
            assert response.json()["error"]["reason"] == "MISSING_SCOPE"


async def test_health_and_reflection_are_open_and_can_be_closed(tmp_path: Path) -> None:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("probe", "ops", ["runs.read"])
    async for edges in open_edges(tmp_path / "open", keys_file=keys.file):
        health = health_pb2_grpc.HealthStub(edges.channel)  # type: ignore[no-untyped-call]
        assert (await health.Check(health_pb2.HealthCheckRequest())).status == 1
        async with httpx.AsyncClient(base_url=edges.origin) as http:
            assert (await http.get("/healthz")).status_code == 200
            assert (await http.get("/openapi.json")).status_code == 401
            assert (
                await http.get("/openapi.json", headers=keys.header("probe"))
            ).status_code == 200
    async for edges in open_edges(
        tmp_path / "closed", keys_file=keys.file, open_health=False, open_reflection=False
    ):
        health = health_pb2_grpc.HealthStub(edges.channel)  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await health.Check(health_pb2.HealthCheckRequest())
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        checked = await health.Check(health_pb2.HealthCheckRequest(), metadata=keys.bearer("probe"))
        assert checked.status == 1
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call_reflection(edges.channel)
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        async with httpx.AsyncClient(base_url=edges.origin) as http:
            assert (await http.get("/healthz")).status_code == 401
            assert (await http.get("/healthz", headers=keys.header("probe"))).status_code == 200


async def call_reflection(channel: grpc.aio.Channel) -> None:
    """Opens a reflection stream and reads. A refusal arrives before any request is needed; no
    request is written, because a write racing the refusal fails as INTERNAL on the client."""
    from grpc_reflection.v1alpha import reflection_pb2_grpc

    stub = reflection_pb2_grpc.ServerReflectionStub(channel)  # type: ignore[no-untyped-call]
    await stub.ServerReflectionInfo(timeout=10).read()


async def test_a_start_only_key_streams_its_own_run_and_nothing_else(tmp_path: Path) -> None:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("starter", "t", ["runs.start"])
    keys.add("reader", "t", ["runs.read", "runs.start"])
    async for edges in open_edges(tmp_path / "data", keys_file=keys.file):
        request = rs.AutomateRequest(params=create(steps=1).automate)
        names = [
            r.event.run
            async for r in edges.runs.Automate(request, metadata=keys.bearer("starter"))
            if r.HasField("event")
        ]
        assert len(names) > 3
        async with httpx.AsyncClient(base_url=edges.origin, headers=keys.header("starter")) as http:
            streamed = await http.post("/v1/automate", json={"task": "t", "data": {"steps": 1}})
            assert streamed.status_code == 200 and "event: done" in streamed.text
        other = (await edges.runs.CreateRun(create(steps=0), metadata=keys.bearer("reader"))).run
        follow = rs.StreamRunEventsRequest(name=other.name)
        try:
            async for _ in edges.runs.StreamRunEvents(follow, metadata=keys.bearer("starter")):
                pass
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        else:
            raise AssertionError("a start-only key followed another principal's run")
