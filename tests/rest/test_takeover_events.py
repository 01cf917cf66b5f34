"""Takeover events on the REST/SSE edge: shown only to callers who opted in with
X-Outrider-Approval-Events (like approvals), hidden from plain Tabstack clients; the takeover is
an interaction of kind takeover in /v1/interactions."""

from __future__ import annotations

import grpc
import httpx

from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import browser_control_service_pb2_grpc as bcg
from tests.rest.support import RestCase, Sse, sse_events
from tests.support.harness import eventually

OPT_IN = {"X-Outrider-Approval-Events": "true"}


async def read(http: httpx.AsyncClient, run_id: str, headers: dict[str, str]) -> list[Sse]:
    async with http.stream("GET", f"/v1/runs/{run_id}/events", headers=headers) as response:
        return [event async for event in sse_events(response)]


async def test_takeover_events_only_for_callers_who_opt_in(rest: RestCase) -> None:
    body = {"task": "Solve the CAPTCHA", "data": {"ask_person": True, "steps": 0}}
    async with httpx.AsyncClient(base_url=rest.origin, timeout=30) as http:
        async with http.stream("POST", "/v1/automate", json=body, headers=OPT_IN) as started:
            run_id = started.headers["Outrider-Run"].removeprefix("runs/")
        pending: list[dict[str, object]] = []

        async def asked() -> bool:
            page = (await http.get("/v1/interactions", params={"run": run_id})).json()
            pending[:] = page["interactions"]
            return bool(pending)

        await eventually(asked)
        assert pending[0]["kind"] == "takeover"
        async with grpc.aio.insecure_channel(f"127.0.0.1:{rest.grpc.port}") as channel:
            stub = bcg.BrowserControlServiceStub(channel)
            request = bcs.DeclineTakeoverRequest(run=f"runs/{run_id}", reason="no CAPTCHAs today")
            await stub.DeclineTakeover(request)
        opted = await read(http, run_id, OPT_IN)
        plain = await read(http, run_id, {})
    names = [event.event for event in opted]
    assert "takeover_requested" in names and "takeover_ended" in names, names
    ended = next(event.data for event in opted if event.event == "takeover_ended")
    assert ended["ending"] == "declined" and ended["note"] == "no CAPTCHAs today"
    assert not any((event.event or "").startswith("takeover") for event in plain)
    assert plain[-1].event == "done"
