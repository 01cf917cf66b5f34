"""TLS on both edges, and mutual TLS where a client certificate can stand for a principal.

Certificates are made at run time (tests/support/pki.py). One TLS server and one mTLS server
serve the whole module; grpcurl, the Python client and CLI, the Node example and the tabstack SDK
each talk to them over TLS.
"""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
import pytest_asyncio
import tabstack
from a2a.client import ClientConfig, create_client
from a2a.types import a2a_pb2 as a2a
from grpc_health.v1 import health_pb2, health_pb2_grpc

from outrider.client import AsyncClient, Tls, UnauthenticatedError, automate_params, event_name
from outrider.server.service import Outrider
from outrider.v1 import run_pb2
from outrider.v1 import run_service_pb2 as rs
from tests.edge.test_grpcurl import GRPCURL
from tests.node.test_node_example import EXAMPLE, node_ready
from tests.security.tenants import CALLER, Edges, Keys, certificate_entry, open_edges
from tests.support.harness import settings_for_tests
from tests.support.pki import Authority, Issued
from tests.support.script_agent import ScriptAgent

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass(frozen=True)
class Pki:
    ca: Authority
    server: Issued
    mapped: Issued  # CN "alpha-cert", a principal of tenant alpha
    stranger: Issued  # signed by the CA, but no principal has its CN
    rogue: Issued  # CN "alpha-cert" too, but signed by another CA

    def credentials(self, client: Issued | None = None) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(
            self.ca.cert_file.read_bytes(),
            client.key.read_bytes() if client else None,
            client.cert.read_bytes() if client else None,
        )

    def http(self, client: Issued | None = None, **kwargs: object) -> httpx.AsyncClient:
        context = ssl.create_default_context(cafile=str(self.ca.cert_file))
        if client is not None:
            context.load_cert_chain(client.cert, client.key)
        return httpx.AsyncClient(verify=context, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    folder = tmp_path_factory.mktemp("pki")
    ca = Authority(folder, "main")
    rogue = Authority(folder, "rogue")
    return Pki(
        ca, ca.server(), ca.client("alpha-cert"), ca.client("stranger"), rogue.client("alpha-cert")
    )


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    keys = Keys(tmp_path_factory.mktemp("keys") / "keys.toml")
    keys.add("alpha-key", "alpha", CALLER)
    certificate_entry(keys.file, "alpha-cert", "alpha", "alpha-cert")
    return keys


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tls(
    tmp_path_factory: pytest.TempPathFactory, pki: Pki, keys: Keys
) -> AsyncIterator[Edges]:
    async for edges in open_edges(
        tmp_path_factory.mktemp("tls"), pki.credentials(), keys_file=keys.file,
        tls_cert=pki.server.cert, tls_key=pki.server.key,
    ):  # fmt: skip
        yield edges


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def mtls(
    tmp_path_factory: pytest.TempPathFactory, pki: Pki, keys: Keys
) -> AsyncIterator[Edges]:
    async for edges in open_edges(
        tmp_path_factory.mktemp("mtls"), pki.credentials(pki.mapped), keys_file=keys.file,
        tls_cert=pki.server.cert, tls_key=pki.server.key, tls_client_ca=pki.ca.cert_file,
    ):  # fmt: skip
        yield edges


async def refused_grpc(target: str, credentials: grpc.ChannelCredentials | None) -> grpc.StatusCode:
    channel = (
        grpc.aio.insecure_channel(target)
        if credentials is None
        else grpc.aio.secure_channel(target, credentials)
    )
    async with channel:
        stub = rs_stub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.ListRuns(rs.ListRunsRequest(), timeout=10)
    return caught.value.code()


def rs_stub(channel: grpc.aio.Channel) -> object:
    from outrider.v1 import run_service_pb2_grpc

    return run_service_pb2_grpc.RunServiceStub(channel)  # type: ignore[no-untyped-call]


async def refused_https(http: httpx.AsyncClient, url: str) -> None:
    async with http:
        with pytest.raises(httpx.HTTPError):
            await http.get(url, timeout=10)


# TLS


async def test_plaintext_is_refused_when_tls_is_on(tls: Edges, keys: Keys) -> None:
    assert await refused_grpc(tls.tls_target, None) == grpc.StatusCode.UNAVAILABLE
    async with httpx.AsyncClient() as plain:
        with pytest.raises(httpx.HTTPError):
            await plain.get(f"http://localhost:{tls.case.rest.port}/healthz", timeout=10)


async def test_python_client_and_cli_over_tls(tls: Edges, keys: Keys, pki: Pki) -> None:
    key = keys.keys["alpha-key"]
    async with AsyncClient(tls.tls_target, api_key=key, tls=Tls(pki.ca.cert_file)) as client:
        events = [e async for e in client.stream(automate_params("t", data={"steps": 1}))]
    assert event_name(events[-1]) == "done"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "outrider.cli.main", "--target", tls.tls_target, "--api-key", key,
        "--ca-file", str(pki.ca.cert_file), "--json", "runs", "list",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, out.decode()
    assert events[0].run in out.decode()


async def grpcurl(*args: str) -> tuple[int, str]:
    assert GRPCURL, "grpcurl is installed by the test extra"
    process = await asyncio.create_subprocess_exec(
        GRPCURL, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, out.decode()


async def test_grpcurl_over_tls(tls: Edges, keys: Keys, pki: Pki) -> None:
    ca = ["-cacert", str(pki.ca.cert_file)]
    code, out = await grpcurl(*ca, tls.tls_target, "list")  # reflection needs no key
    assert code == 0 and "outrider.v1.RunService" in out, out
    auth = ["-H", f"authorization: Bearer {keys.keys['alpha-key']}"]
    code, out = await grpcurl(*ca, *auth, tls.tls_target, "outrider.v1.RunService/ListRuns")
    assert code == 0, out
    code, out = await grpcurl("-plaintext", *auth, tls.tls_target, "list")
    assert code != 0


async def test_node_example_over_tls(tls: Edges, keys: Keys, pki: Pki) -> None:
    node = node_ready()
    env = os.environ | {
        "OUTRIDER_TARGET": tls.tls_target,
        "OUTRIDER_API_KEY": keys.keys["alpha-key"],
        "OUTRIDER_CA_FILE": str(pki.ca.cert_file),
        "OUTRIDER_DATA": json.dumps({"steps": 1, "ask_input": True}),
        "OUTRIDER_ANSWERS": json.dumps({"Email": "node@example.com"}),
    }
    process = await asyncio.create_subprocess_exec(
        node, "interactive.js", "log in", cwd=EXAMPLE, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    text = out.decode()
    assert process.returncode == 0, text
    assert "accepted" in text and text.strip().endswith("final answer: done")


async def test_tabstack_sdk_over_tls(tls: Edges, keys: Keys, pki: Pki) -> None:
    context = ssl.create_default_context(cafile=str(pki.ca.cert_file))
    sdk = tabstack.AsyncTabstack(
        api_key=keys.keys["alpha-key"],
        base_url=f"{tls.tls_origin}/v1",
        max_retries=0,
        http_client=tabstack.DefaultAsyncHttpxClient(verify=context),
    )
    async with sdk:
        stream = await sdk.agent.automate(task="over TLS", data={"steps": 1})
        events = [event async for event in stream]
    assert events[-1].event == "done"
    assert any(e.event == "complete" for e in events)


# mutual TLS


async def test_a_client_without_certificate_is_refused(mtls: Edges, pki: Pki) -> None:
    assert await refused_grpc(mtls.tls_target, pki.credentials()) == grpc.StatusCode.UNAVAILABLE
    await refused_https(pki.http(), f"{mtls.tls_origin}/healthz")


async def test_a_certificate_from_another_ca_is_refused(mtls: Edges, pki: Pki) -> None:
    rogue = pki.credentials(pki.rogue)
    assert await refused_grpc(mtls.tls_target, rogue) == grpc.StatusCode.UNAVAILABLE
    await refused_https(pki.http(pki.rogue), f"{mtls.tls_origin}/healthz")


async def test_a_mapped_certificate_is_a_principal(mtls: Edges, keys: Keys, pki: Pki) -> None:
    tls = Tls(pki.ca.cert_file, pki.mapped.cert, pki.mapped.key)
    async with AsyncClient(mtls.tls_target, tls=tls) as client:
        run = await client.create_run(automate_params("by certificate", data={"steps": 0}))
        assert run.created_by == "alpha-cert" and run.tenant == "alpha"
    async with pki.http(pki.mapped, base_url=mtls.tls_origin) as http:
        got = await http.get(f"/v1/runs/{run.name.removeprefix('runs/')}")
        assert got.status_code == 200 and got.json()["createdBy"] == "alpha-cert"
    stranger = Tls(pki.ca.cert_file, pki.stranger.cert, pki.stranger.key)
    async with AsyncClient(mtls.tls_target, tls=stranger) as client:
        with pytest.raises(UnauthenticatedError):
            await client.get_run(run.name)
    async with AsyncClient(mtls.tls_target, tls=stranger, api_key=keys.keys["alpha-key"]) as client:
        assert (await client.get_run(run.name)).created_by == "alpha-cert"  # same tenant
    async with pki.http(pki.stranger, base_url=mtls.tls_origin) as http:
        assert (await http.get("/v1/runs")).status_code == 401


async def test_the_console_signs_in_with_a_mapped_certificate(mtls: Edges, pki: Pki) -> None:
    """Its session cookie is Secure and host-only under TLS, and good only on a connection that
    presents the same certificate: a copy of it is worthless with another certificate."""
    origin = {"Origin": mtls.tls_origin}
    async with pki.http(pki.mapped, base_url=mtls.tls_origin) as http:
        page = await http.get("/console/sign-in")
        assert "alpha-cert" in page.text and "Continue with this certificate" in page.text
        signed = await http.post(
            "/console/sign-in/certificate", data={"next": "/console/"}, headers=origin
        )
        assert signed.status_code == 303
        cookie = signed.headers["set-cookie"]
        assert cookie.startswith("__Host-outrider-console=") and "; Secure" in cookie
        assert "HttpOnly" in cookie and "Path=/;" in cookie and "SameSite=strict" in cookie
        runs = await http.get("/console/")
        assert runs.status_code == 200 and "Signed in as <strong>alpha-cert</strong>" in runs.text
        value = http.cookies["__Host-outrider-console"]
    async with pki.http(pki.stranger, base_url=mtls.tls_origin) as http:
        http.cookies.set("__Host-outrider-console", value)
        elsewhere = await http.get("/console/")
        assert elsewhere.status_code == 303 and "/console/sign-in" in elsewhere.headers["location"]
        refused = await http.post(
            "/console/sign-in/certificate", data={"next": "/console/"}, headers=origin
        )
        assert refused.status_code == 401  # an unmapped certificate is nobody


async def test_the_a2a_agent_takes_a_mapped_certificate(mtls: Edges, pki: Pki) -> None:
    """The card names mutual TLS beside bearer keys; the a2a-sdk client with the mapped
    certificate (and no key) is that principal; an unmapped one gets a JSON-RPC 401."""
    async with pki.http(pki.mapped, timeout=30) as http:
        card = (await http.get(f"{mtls.tls_origin}/.well-known/agent-card.json")).json()
        assert set(card["securitySchemes"]) == {"bearer", "mtls"}
        client = await create_client(
            mtls.tls_origin, ClientConfig(streaming=False, httpx_client=http)
        )
        sent = a2a.Message(message_id="tls-1", role=a2a.ROLE_USER, parts=[a2a.Part(text="t")])
        sent.parts.add().data.struct_value.update({"data": {"steps": 0}})
        async for response in client.send_message(a2a.SendMessageRequest(message=sent)):
            assert response.task.status.state == a2a.TASK_STATE_COMPLETED
            run = await http.get(f"{mtls.tls_origin}/v1/runs/{response.task.id}")
            assert run.json()["createdBy"] == "alpha-cert" and run.json()["tenant"] == "alpha"
    async with pki.http(pki.stranger) as http:
        body = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}
        refused = await http.post(f"{mtls.tls_origin}/a2a", json=body)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == -32000


async def test_cli_with_a_client_certificate(mtls: Edges, pki: Pki) -> None:
    async def cli(*args: str) -> tuple[int, str]:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "outrider.cli.main", "--target", mtls.tls_target,
            "--ca-file", str(pki.ca.cert_file), *args,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        out, _ = await asyncio.wait_for(process.communicate(), 60)
        return process.returncode or 0, out.decode()

    mine = ["--cert-file", str(pki.mapped.cert), "--key-file", str(pki.mapped.key)]
    code, out = await cli(*mine, "--json", "runs", "list")
    assert code == 0, out
    code, out = await cli("--cert-file", str(pki.mapped.cert), "runs", "list")
    assert code == 2, out  # a certificate without its key is a usage error


async def test_grpcurl_with_a_client_certificate(mtls: Edges, pki: Pki) -> None:
    ca = ["-cacert", str(pki.ca.cert_file)]
    mine = ["-cert", str(pki.mapped.cert), "-key", str(pki.mapped.key)]
    code, out = await grpcurl(*ca, *mine, mtls.tls_target, "outrider.v1.RunService/ListRuns")
    assert code == 0, out
    code, out = await grpcurl(*ca, mtls.tls_target, "list")
    assert code != 0


async def test_a_plaintext_health_only_port_for_probes(tmp_path: Path, pki: Pki) -> None:
    """Under mutual TLS, OUTRIDER_HEALTH_PORT answers grpc.health in plaintext, and nothing else."""
    async for edges in open_edges(
        tmp_path, pki.credentials(pki.mapped), tls_cert=pki.server.cert, tls_key=pki.server.key,
        tls_client_ca=pki.ca.cert_file, health_port=0,
    ):  # fmt: skip
        probe = f"127.0.0.1:{edges.case.grpc.health_port}"
        async with grpc.aio.insecure_channel(probe) as channel:
            health = health_pb2_grpc.HealthStub(channel)  # type: ignore[no-untyped-call]
            checked = await health.Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert checked.status == health_pb2.HealthCheckResponse.SERVING
        assert await refused_grpc(probe, None) == grpc.StatusCode.UNIMPLEMENTED


async def test_sighup_reload_swaps_the_certificate_for_new_connections(tmp_path: Path) -> None:
    """The server's certificate files are rewritten (signed by a new CA) and reloaded: new
    connections on both edges present the new certificate, and the old CA no longer verifies."""
    old_ca, new_ca = Authority(tmp_path / "old", "old"), Authority(tmp_path / "new", "new")
    issued = old_ca.server()
    agent = ScriptAgent()
    settings = settings_for_tests(
        tmp_path / "data", rest_port=0, tls_cert=issued.cert, tls_key=issued.key
    )
    server = Outrider(
        settings, {run_pb2.RUN_KIND_AUTOMATE: agent, run_pb2.RUN_KIND_RESEARCH: agent}
    )
    await server.start()
    assert server.rest is not None
    target, origin = f"localhost:{server.grpc.port}", f"https://localhost:{server.rest.port}"
    try:
        assert await health_over(target, old_ca)
        issued.key.write_bytes(new_ca.client("x").key.read_bytes())  # a key of another cert
        assert server.reload()  # the keys reload; the broken TLS pair is refused and logged
        assert await health_over(target, old_ca)
        fresh = new_ca.server()
        issued.cert.write_bytes(fresh.cert.read_bytes())
        issued.key.write_bytes(fresh.key.read_bytes())
        assert server.reload()
        assert await health_over(target, new_ca)
        assert not await health_over(target, old_ca)
        context = ssl.create_default_context(cafile=str(new_ca.cert_file))
        async with httpx.AsyncClient(verify=context) as http:
            assert (await http.get(f"{origin}/healthz")).status_code == 200
    finally:
        await server.stop()


async def health_over(target: str, ca: Authority) -> bool:
    credentials = grpc.ssl_channel_credentials(ca.cert_file.read_bytes())
    async with grpc.aio.secure_channel(target, credentials) as channel:
        health = health_pb2_grpc.HealthStub(channel)  # type: ignore[no-untyped-call]
        try:
            await health.Check(health_pb2.HealthCheckRequest(), timeout=10)
        except grpc.aio.AioRpcError:
            return False
    return True
