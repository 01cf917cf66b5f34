"""GET /v1/runs/{runId}/artifacts/{artifactId}: the bytes as a download that a browser never
renders on the API's origin; bytes the store no longer has are a JSON 404, not a cut body."""

from __future__ import annotations

import shutil

import grpc
import httpx

from outrider.v1 import run_service_pb2, run_service_pb2_grpc
from tests.rest.support import RestCase, sse_events
from tests.support.script_agent import ARTIFACT_BYTES


async def artifact_path(rest: RestCase, http: httpx.AsyncClient) -> str:
    """A finished run's screenshot, its name read over gRPC (the Tabstack SSE events carry no
    artifact names)."""
    body = {"task": "t", "data": {"steps": 1, "artifact": True}}
    async with http.stream("POST", "/v1/automate", json=body) as response:
        assert [e.event async for e in sse_events(response)][-1] == "done"
        run_id = response.headers["location"].split("/")[3]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{rest.grpc.port}") as channel:
        stub = run_service_pb2_grpc.RunServiceStub(channel)
        request = run_service_pb2.StreamRunEventsRequest(name=f"runs/{run_id}")
        replies = [r async for r in stub.StreamRunEvents(request)]
        names = [r.event.artifact for r in replies if r.event.artifact]
    return "/v1/" + names[0]


async def test_an_artifact_is_a_sandboxed_download(rest: RestCase) -> None:
    async with httpx.AsyncClient(base_url=rest.origin, timeout=30) as http:
        path = await artifact_path(rest, http)
        response = await http.get(path)
    assert response.status_code == 200 and response.content == ARTIFACT_BYTES
    assert response.headers["content-disposition"] == "attachment"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-security-policy"] == "sandbox"
    assert response.headers["cache-control"] == "no-store"  # a tenant's bytes: in no cache


async def test_bytes_the_store_no_longer_has_are_a_json_404(rest: RestCase) -> None:
    async with httpx.AsyncClient(base_url=rest.origin, timeout=30) as http:
        path = await artifact_path(rest, http)
        shutil.rmtree(rest.grpc.settings.artifacts_dir)  # as files no replica reads any more
        response = await http.get(path)
    assert response.status_code == 404, response.text
    assert response.json()["error"]["reason"] == "ARTIFACT_BYTES_MISSING"
