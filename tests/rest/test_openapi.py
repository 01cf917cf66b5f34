"""The OpenAPI document describes every route; schemathesis finds no 5xx; every route but
/healthz answers 401 without the right key."""

from __future__ import annotations

import asyncio

import httpx
import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck

from outrider.server.rest_edge.openapi import openapi_document
from tests.rest.conftest import RestFactory
from tests.rest.support import KEY

_EXAMPLES = 12


def _fuzz(base_url: str) -> tuple[list[str], int]:
    """Runs every operation with generated requests; returns the failures and the call count."""
    schema = schemathesis.openapi.from_dict(openapi_document())
    failures: list[str] = []
    calls: list[int] = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @hypothesis.given(case=operation.as_strategy())
        @hypothesis.settings(
            max_examples=_EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
        )
        def check(case: schemathesis.Case) -> None:
            headers = {**(case.headers or {}), "Authorization": f"Bearer {KEY}"}
            response = case.call(base_url=base_url, headers=headers, timeout=20)
            calls.append(response.status_code)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.formatted_path}: {response.status_code}")

        check()
    return failures, len(calls)


@pytest.mark.long_running
async def test_schemathesis_finds_no_server_errors(make_rest: RestFactory) -> None:
    case = await make_rest(api_keys=(KEY,), interaction_ttl=1.0, max_concurrent_runs=2)
    failures, calls = await asyncio.to_thread(_fuzz, case.origin)
    assert not failures, failures
    assert calls >= 5 * len(openapi_document()["paths"])


async def test_the_document_is_served_and_names_every_route(make_rest: RestFactory) -> None:
    case = await make_rest(api_keys=(KEY,))
    async with httpx.AsyncClient(base_url=case.origin) as http:
        served = await http.get("/openapi.json", headers={"Authorization": f"Bearer {KEY}"})
    paths = served.json()["paths"]
    routes = {r.path for r in case.rest._server.config.app.routes}  # type: ignore[attr-defined]
    assert routes - {"/openapi.json"} == set(paths)


async def test_wrong_or_missing_key_is_401_on_every_route(make_rest: RestFactory) -> None:
    case = await make_rest(api_keys=(KEY,))
    calls = [
        (method, path.replace("{", "").replace("}", "") + "0000000000")
        for path, item in openapi_document()["paths"].items()
        for method in item
    ] + [("get", "/openapi.json"), ("get", "/v1/nowhere")]
    async with httpx.AsyncClient(base_url=case.origin) as http:
        for method, path in calls:
            if path.startswith("/healthz"):
                continue
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}):
                response = await http.request(method, path, headers=headers, json={})
                assert response.status_code == 401, (method, path, headers)
                assert response.json()["error"]["reason"] == "UNAUTHENTICATED"
                assert response.headers["www-authenticate"].startswith("Bearer")
        health = await http.get("/healthz")
    assert health.status_code == 200
