"""DELETE /v1/runs/{runId}: a finished run goes with everything it had; an active one is 409."""

from __future__ import annotations

import httpx

from outrider.server.core.principals import ANONYMOUS
from outrider.server.rest_edge.streams import StreamSettings, sse_response
from tests.rest.support import RestCase, sse_events
from tests.support.script_agent import ARTIFACT_BYTES


async def finished_run_id(http: httpx.AsyncClient, steps: int = 1) -> str:
    body = {"task": "t", "data": {"steps": steps, "artifact": True}}
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


async def test_an_sse_replay_of_a_run_deleted_meanwhile_ends_with_an_error_event(
    rest: RestCase,
) -> None:
    """The edge's SSE body, read in process (over a socket the server would have written the
    whole replay into buffers before the delete)."""
    async with httpx.AsyncClient(base_url=rest.origin, timeout=60) as http:
        run_id = await finished_run_id(http, steps=300)  # more than one page of catch-up
    runs = rest.grpc.runs
    run = runs.get(run_id, ANONYMOUS)
    events = runs.watch_batches(run_id, 0, ANONYMOUS)
    body = sse_response(run, events, StreamSettings(False, 3000)).body_iterator
    blocks = [await anext(body), await anext(body)]  # the comment, then event 1
    assert b"id: 1" in _text(blocks[-1]).encode()
    await runs.delete(run_id, ANONYMOUS)
    blocks += [chunk async for chunk in body]
    last = _text(blocks[-1])
    assert "event: error" in last and "no longer kept" in last and "RUN_DELETED" in last
    assert not any("event: done" in _text(block) for block in blocks)


def _text(chunk: str | bytes | memoryview) -> str:
    return chunk if isinstance(chunk, str) else bytes(chunk).decode()


async def test_a_replay_that_delivered_everything_ends_normally_despite_a_delete(
    rest: RestCase,
) -> None:
    async with httpx.AsyncClient(base_url=rest.origin, timeout=60) as http:
        run_id = await finished_run_id(http)
    runs = rest.grpc.runs
    events = runs.watch_batches(run_id, 0, ANONYMOUS)
    body = sse_response(
        runs.get(run_id, ANONYMOUS), events, StreamSettings(False, 3000)
    ).body_iterator
    blocks = [await anext(body)]
    while "event: done" not in _text(blocks[-1]):
        blocks.append(await anext(body))
    await runs.delete(run_id, ANONYMOUS)
    assert [chunk async for chunk in body] == []  # nothing was missed: no error
