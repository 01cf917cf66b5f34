"""Both edges observed in process: every gRPC call and REST request is counted by method and
status, logged once (with the caller's trace), and /metrics is served behind the API key."""

from __future__ import annotations

import grpc
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from outrider.server.telemetry.metrics import REGISTRY
from outrider.v1 import run_service_pb2, run_service_pb2_grpc
from tests.rest.conftest import RestFactory
from tests.rest.support import KEY
from tests.support.harness import eventually
from tests.telemetry.capture import json_log

TRACE = "5b8efff798038103d269b633813fc60c"
TRACEPARENT = f"00-{TRACE}-eee19b7ec3c1b174-01"
AUTH = {"authorization": f"Bearer {KEY}"}


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_grpc_calls_are_counted_and_logged_with_their_status_code(
    make_rest: RestFactory,
) -> None:
    case = await make_rest(api_keys=(KEY,))
    method = "outrider.v1.RunService/GetRun"
    before = {
        code: sample("outrider_grpc_requests_total", method=method, code=code)
        for code in ("NOT_FOUND", "UNAUTHENTICATED")
    }
    async with grpc.aio.insecure_channel(f"127.0.0.1:{case.grpc.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        request = run_service_pb2.GetRunRequest(name="runs/0123456789abcdef01234567")
        with json_log("outrider.access") as lines:
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await runs.GetRun(request, metadata=(*AUTH.items(), ("traceparent", TRACEPARENT)))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await runs.GetRun(request)
            # the access line is written as the call ends, which may be after the client
            # has the status (under load, noticeably so)
            await eventually(lambda: len(lines) == 2)
    codes = [missing.value.code().name, refused.value.code().name]
    assert codes == ["NOT_FOUND", "UNAUTHENTICATED"]
    assert [(line["method"], line["code"]) for line in lines] == [(method, c) for c in codes]
    assert lines[0]["trace_id"] == TRACE and lines[0]["level"] == "INFO"
    assert lines[1].get("trace_id") != TRACE
    for code in codes:
        assert sample("outrider_grpc_requests_total", method=method, code=code) == before[code] + 1


async def test_rest_requests_are_counted_by_route_template_and_logged(
    make_rest: RestFactory,
) -> None:
    case = await make_rest(api_keys=(KEY,))
    route = {"method": "GET", "route": "/v1/runs/{runId}", "status": "404"}
    unmatched = {"method": "GET", "route": "unmatched", "status": "404"}
    before = [
        sample("outrider_http_requests_total", **route),
        sample("outrider_http_requests_total", **unmatched),
    ]
    async with httpx.AsyncClient(base_url=case.origin) as http:
        with json_log("outrider.access") as lines:
            missing = await http.get(
                "/v1/runs/0123456789abcdef01234567?secret=hidden",
                headers=AUTH | {"traceparent": TRACEPARENT},
            )
            nowhere = await http.get("/no/such/path", headers=AUTH)
    assert (missing.status_code, nowhere.status_code) == (404, 404)
    assert sample("outrider_http_requests_total", **route) == before[0] + 1
    assert sample("outrider_http_requests_total", **unmatched) == before[1] + 1
    first, second = lines
    assert first["route"] == "/v1/runs/{runId}" and first["status"] == 404
    assert first["trace_id"] == TRACE
    assert "hidden" not in str(first)  # the query string is never logged
    assert second["route"] == "unmatched" and second["path"] == "/no/such/path"


async def test_metrics_are_served_in_the_exposition_format_behind_the_api_key(
    make_rest: RestFactory,
) -> None:
    case = await make_rest(api_keys=(KEY,))
    async with httpx.AsyncClient(base_url=case.origin) as http:
        refused = await http.get("/metrics")
        served = await http.get("/metrics", headers=AUTH)
    assert refused.status_code == 401 and refused.json()["error"]["reason"]
    assert served.status_code == 200
    assert served.headers["content-type"].startswith("text/plain")
    families = {f.name for f in text_string_to_metric_families(served.text)}
    assert {"outrider_runs_started", "outrider_http_requests", "process_cpu_seconds"} <= families
