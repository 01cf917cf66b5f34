"""DELETE /v1/runs/{runId}: a finished run goes with everything it had; an active one is 409."""

from __future__ import annotations

import httpx

from tests.rest.support import RestCase, sse_events
from tests.support.script_agent import ARTIFACT_BYTES


async def finished_run_id(http: httpx.AsyncClient) -> str:
    body = {"task": "t", "data": {"steps": 1, "artifact": True}}
    async with http.stream("POST", "/v1/automate", json=body) as response:
        names = [event.event async for event in sse_events(response)]
        run_id = response.headers["location"].split("/")[3]
    assert names[-1] == "done"
    return run_id


async def test_delete_a_finished_run_then_it_is_gone(rest: RestCase) -> None:
    async with httpx.AsyncClient(base_url=rest.origin, timeout=30) as http:
        run_id = await finished_run_id(http)
        deleted = await http.delete(f"/v1/runs/{run_id}")
        assert deleted.status_code == 200, deleted.text
        assert deleted.json()["run"]["name"] == f"runs/{run_id}"
        assert deleted.json()["freedArtifactBytes"] == len(ARTIFACT_BYTES)
        for response in (
            await http.get(f"/v1/runs/{run_id}"),
            await http.get(f"/v1/runs/{run_id}/events"),
            await http.delete(f"/v1/runs/{run_id}"),
        ):
            assert response.status_code == 404
            assert response.json()["error"]["reason"] == "NOT_FOUND"


async def test_delete_an_active_run_is_409_run_active(rest: RestCase) -> None:
    async with httpx.AsyncClient(base_url=rest.origin, timeout=30) as http:
        body = {"task": "t", "data": {"steps": 1, "hold": True}}
        async with http.stream("POST", "/v1/automate", json=body) as response:
            run_id = response.headers["location"].split("/")[3]
            refused = await http.delete(f"/v1/runs/{run_id}")
            assert refused.status_code == 409
            assert refused.json()["error"]["reason"] == "RUN_ACTIVE"
            await http.post(f"/v1/runs/{run_id}/cancel", json={})
        assert (await http.delete(f"/v1/runs/{run_id}")).status_code == 200
