"""DNS rebinding against a server with authentication off: a page whose name was re-pointed at
127.0.0.1 talks to the port as a same-origin page of its own name (Host and Origin are its
name). The HTTP port answers only its own names then (security/hosts.py)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from outrider.server.security.hosts import HostPolicy
from outrider.v1 import run_service_pb2 as rs
from tests.security.tenants import Edges, Keys, open_edges
from tests.support.harness import settings_for_tests
from tests.support.requests import automate_request

ON_THE_MODULE_SERVER = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def open_server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Edges]:
    """Authentication off (no key), the console on, one configured extra name."""
    folder = tmp_path_factory.mktemp("rebinding")
    async for edges in open_edges(folder, allowed_hosts="outrider.lan"):
        yield edges


def as_host(edges: Edges, name: str) -> dict[str, str]:
    """The headers of a same-origin browser request to this server reached as `name`."""
    port = edges.case.rest.port
    return {"Host": f"{name}:{port}", "Origin": f"http://{name}:{port}"}


async def running(edges: Edges) -> str:
    request = automate_request(steps=400, interval=0.05)
    created = await edges.runs.CreateRun(
        rs.CreateRunRequest(automate=request.params, options=request.options)
    )
    return created.run.name.removeprefix("runs/")


async def signed_in(http: httpx.AsyncClient, headers: dict[str, str]) -> str:
    """Signs `http` in to the console anonymously: the CSRF token of its session."""
    sign_in = await http.get("/console/sign-in", headers=headers)
    assert sign_in.status_code == 303 and "outrider-console" in http.cookies, sign_in.text
    page = await http.get("/console/", headers=headers)
    match = re.search(r'"X-CSRF-Token": "([^"]+)"', page.text)
    assert match, page.text
    return match.group(1)


@ON_THE_MODULE_SERVER
async def test_a_rebound_name_gets_no_session_and_cancels_nothing(open_server: Edges) -> None:
    run_id = await running(open_server)
    evil = as_host(open_server, "evil.example")
    async with httpx.AsyncClient(base_url=open_server.origin, timeout=30) as http:
        refused = await http.get("/console/sign-in", headers=evil)
        assert refused.status_code == 403 and "set-cookie" not in refused.headers
        assert refused.json()["error"]["reason"] == "HOST_NOT_ALLOWED"
        api = await http.get("/v1/runs", headers=evil)
        assert api.status_code == 403 and api.json()["error"]["reason"] == "HOST_NOT_ALLOWED"
        csrf = await signed_in(http, as_host(open_server, "127.0.0.1"))
        cancel = await http.post(
            f"/console/runs/{run_id}/cancel", data={"csrf": csrf}, headers=evil
        )
        assert cancel.status_code == 403
        run = await open_server.runs.GetRun(rs.GetRunRequest(name=f"runs/{run_id}"))
        assert not run.run.HasField("end_time")  # nothing was cancelled
        cancelled = await http.post(  # the same request to the server's own name is taken
            f"/console/runs/{run_id}/cancel",
            data={"csrf": csrf},
            headers=as_host(open_server, "localhost"),
        )
        assert cancelled.status_code == 303


@ON_THE_MODULE_SERVER
async def test_the_server_answers_its_own_names(open_server: Edges) -> None:
    async with httpx.AsyncClient(base_url=open_server.origin, timeout=30) as http:
        for name in ("localhost", "127.0.0.1", "[::1]", "app.localhost", "OUTRIDER.LAN."):
            answered = await http.get("/v1/runs", headers=as_host(open_server, name))
            assert answered.status_code == 200, name


async def test_with_keys_any_host_is_answered_and_asked_for_a_key(tmp_path: Path) -> None:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("alice", "alpha", ["runs.read"])
    async for edges in open_edges(tmp_path / "data", keys_file=keys.file):
        async with httpx.AsyncClient(base_url=edges.origin, timeout=30) as http:
            evil = as_host(edges, "evil.example")
            assert (await http.get("/v1/runs", headers=evil)).status_code == 401
            with_key = evil | keys.header("alice")
            assert (await http.get("/v1/runs", headers=with_key)).status_code == 200


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("localhost:8080", True),
        ("127.0.0.1", True),
        ("[::1]:8080", True),
        ("10.1.2.3:8080", True),  # a pod's address (probes): no rebinding makes an IP literal
        ("ops.example.com", True),  # OUTRIDER_PUBLIC_URL's host
        ("Outrider.Lan:9", True),  # OUTRIDER_ALLOWED_HOSTS, any case
        ("evil.example:8080", False),
        ("localhost.evil.example", False),
        ("", False),
        ("[::1", False),
        (None, True),  # no Host header: not a browser
    ],
)
def test_the_host_policy(tmp_path: Path, host: str | None, allowed: bool) -> None:
    settings = settings_for_tests(
        tmp_path, public_url="https://ops.example.com/outrider", allowed_hosts="outrider.lan"
    )
    assert HostPolicy(settings).allows(host) is allowed
