"""An unexpected error is an internal error with an incident id on every door (gRPC, REST, the
console, MCP, A2A): never the exception's text or a traceback on the wire, and the id finds the
traceback in the server log. The fault is real, at the store: its events table is gone, as a
restore from a broken backup could leave it; each door reads a run's events."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import grpc
import httpx
import pytest

from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.rest.support import RestCase, start_rest
from tests.support.harness import eventually, rich_error
from tests.support.raw_mcp import MCP_HEADERS, mcp_call, mcp_session
from tests.support.requests import automate_request

_INCIDENT = re.compile(r"\(incident ([0-9a-f]{16})\)")
_LEAKS = ("OperationalError", "no such table", "Traceback", 'File "', "sqlite")
KEY = "unexpected-errors-key"
BEARER = (("authorization", f"Bearer {KEY}"),)


async def _ended_run(case: RestCase, runs: run_service_pb2_grpc.RunServiceStub) -> str:
    start = run_service_pb2.CreateRunRequest(automate=automate_request(steps=0).params)
    created: run_service_pb2.CreateRunResponse = await runs.CreateRun(start, metadata=BEARER)
    name = created.run.name

    async def ended() -> bool:
        request = run_service_pb2.GetRunRequest(name=name)
        read: run_service_pb2.GetRunResponse = await runs.GetRun(request, metadata=BEARER)
        return read.run.state == run_pb2.RUN_STATE_SUCCEEDED

    await eventually(ended)
    return name.removeprefix("runs/")


def _damage(data_dir: Path) -> None:
    """The store loses its events table (a restore from a broken backup)."""
    with closing(sqlite3.connect(data_dir / "outrider.sqlite3")) as db, db:
        db.execute("DROP TABLE events")


async def _told(
    case: RestCase, runs: run_service_pb2_grpc.RunServiceStub, run_id: str
) -> dict[str, str]:
    """What each door answers a read of the damaged run."""
    told = {}
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        request = run_service_pb2.StreamRunEventsRequest(name=f"runs/{run_id}")
        _ = [event async for event in runs.StreamRunEvents(request, metadata=BEARER)]
    assert caught.value.code() == grpc.StatusCode.INTERNAL
    assert rich_error(caught.value).reason == "INTERNAL"
    told["grpc"] = caught.value.details() or ""
    headers = {"Authorization": f"Bearer {KEY}"}
    async with httpx.AsyncClient(base_url=case.origin, headers=headers, timeout=60) as http:
        rest = await http.get(f"/v1/runs/{run_id}/events")  # an SSE stream: its error event
        assert rest.status_code == 200 and "event: error" in rest.text
        told["rest"] = rest.text
        signed_in = await http.post(
            "/console/sign-in", data={"key": KEY}, headers={"Origin": case.origin}
        )
        assert signed_in.status_code == 303
        console = await http.get(f"/console/runs/{run_id}/live")  # its timeline's stream
        assert console.status_code == 200 and "The live view stopped" in console.text
        told["console"] = console.text
        body = {"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": run_id}}
        a2a = await http.post("/a2a", json=body, headers={"A2A-Version": "1.0"})
        assert a2a.json()["error"]["code"] == -32603
        told["a2a"] = a2a.text
        http.headers.update(MCP_HEADERS)
        session = await mcp_session(http, f"{case.origin}/mcp")
        call = {"name": "get_run", "arguments": {"run": f"runs/{run_id}"}}
        mcp = await mcp_call(http, f"{case.origin}/mcp", session, "tools/call", call)
        assert mcp["error"]["code"] == -32603, mcp
        told["mcp"] = mcp["error"]["message"]
    return told


async def test_a_store_without_its_events_table_is_an_internal_error_with_an_incident_id(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    case = await start_rest(tmp_path / "data", api_keys=(KEY,))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{case.grpc.port}") as channel:
            runs = run_service_pb2_grpc.RunServiceStub(channel)
            run_id = await _ended_run(case, runs)
            _damage(tmp_path / "data")
            told = await _told(case, runs, run_id)
    finally:
        await case.stop()
    incidents = {}
    for door, text in told.items():
        assert not any(leak in text for leak in _LEAKS), (door, text)
        found = _INCIDENT.search(text)
        assert found, (door, text)
        incidents[door] = found.group(1)
    assert len(set(incidents.values())) == len(incidents)  # one incident per failed call
    tracebacks = [r.getMessage() for r in caplog.records if r.exc_info]
    for door, ident in incidents.items():
        assert any(f"(incident {ident})" in line for line in tracebacks), (door, tracebacks)
