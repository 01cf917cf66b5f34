"""No request can poison the store: what could not be read back is refused up front on both
edges, and a row that does not decode (a bug, a bad disk) never takes reads or start-up down."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format, struct_pb2

from outrider.server.core.validation import MAX_DATA_BYTES, MAX_DATA_DEPTH, MAX_TASK_CHARS
from outrider.v1 import params_pb2, run_pb2, run_service_pb2
from tests.support.both_edges import Edges, both_edges
from tests.support.harness import eventually, rich_error

DONE = (run_pb2.RUN_STATE_SUCCEEDED, run_pb2.RUN_STATE_FAILED)


def nested(depth: int) -> dict[str, Any]:
    """A JSON object `depth` levels deep (a flat object is 1 level), alternating with arrays."""
    value: Any = 1
    for level in range(depth - 1):
        value = {"k": value} if level % 2 else [value]
    return {"k": value}


def struct(data: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    json_format.ParseDict(data, message)
    return message


async def grpc_violations(edges: Edges, data: struct_pb2.Struct) -> dict[str, str]:
    request = run_service_pb2.CreateRunRequest(
        automate=params_pb2.AutomateParams(task="t", data=data)
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await edges.runs.CreateRun(request)
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT, error
    return error.violations


async def rest_violations(edges: Edges, body: bytes) -> dict[str, str]:
    headers = {"content-type": "application/json"}
    response = await edges.http.post("/v1/automate", content=body, headers=headers)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    return {v["field"]: v["description"] for v in error["fieldViolations"]}


async def finished(edges: Edges, name: str) -> run_pb2.Run:
    async def done() -> bool:
        run = await edges.runs.GetRun(run_service_pb2.GetRunRequest(name=name))
        return run.run.state in DONE

    await eventually(done)
    return (await edges.runs.GetRun(run_service_pb2.GetRunRequest(name=name))).run


async def test_too_deep_data_is_refused_naming_the_field_and_limit(tmp_path: Path) -> None:
    async with both_edges(tmp_path) as edges:
        for depth in (MAX_DATA_DEPTH + 1, 33, 40, 49, 200):
            body = json.dumps({"task": "t", "data": nested(depth)}).encode()
            violations = await rest_violations(edges, body)
            assert "data" in violations, (depth, violations)
        for depth in (MAX_DATA_DEPTH + 1, 33):
            violations = await grpc_violations(edges, struct(nested(depth)))
            assert f"at most {MAX_DATA_DEPTH} levels" in violations["automate.data"]
        assert await edges.list_names() == []


async def test_data_at_the_limit_is_stored_and_reads_back_everywhere(tmp_path: Path) -> None:
    async with both_edges(tmp_path) as edges:
        data = nested(MAX_DATA_DEPTH)
        response = await edges.runs.CreateRun(
            run_service_pb2.CreateRunRequest(
                automate=params_pb2.AutomateParams(task="t", data=struct(data))
            )
        )
        run = await finished(edges, response.run.name)
        assert json_format.MessageToDict(run.automate.data) == data
        fetched = await edges.http.get(f"/v1/{run.name}")
        assert fetched.status_code == 200 and fetched.json()["params"]["data"] == data
        assert await edges.list_names() == [run.name]
    async with both_edges(tmp_path) as edges:  # and after a restart
        assert await edges.list_names() == [run.name]


async def test_nan_and_infinity_in_data_are_refused_on_both_edges(tmp_path: Path) -> None:
    async with both_edges(tmp_path) as edges:
        for literal in (b"NaN", b"Infinity", b"-Infinity", b"1e400"):
            body = b'{"task": "t", "data": {"x": [' + literal + b"]}}"
            refused = "data" if literal == b"1e400" else "body"  # 1e400 parses, as infinity
            assert refused in await rest_violations(edges, body)
        for number in (math.nan, math.inf, -math.inf):
            data = struct_pb2.Struct()
            data.fields["x"].number_value = number
            violations = await grpc_violations(edges, data)
            assert "finite" in violations["automate.data"]
        assert await edges.list_names() == []


async def test_oversized_data_is_refused(tmp_path: Path) -> None:
    async with both_edges(tmp_path) as edges:
        data = struct({"blob": "x" * (MAX_DATA_BYTES + 1)})
        violations = await grpc_violations(edges, data)
        assert f"{MAX_DATA_BYTES:,} bytes" in violations["automate.data"]


def corrupt(database: Path, sql: str, *params: Any) -> None:
    """Writes into the server's SQLite file behind its back, as a bug or a bad disk would."""
    with sqlite3.connect(database) as conn:
        assert conn.execute(sql, params).rowcount >= 1


async def three_finished_runs(edges: Edges) -> list[str]:
    names = []
    for _ in range(3):
        created = await edges.runs.CreateRun(
            run_service_pb2.CreateRunRequest(automate=params_pb2.AutomateParams(task="t"))
        )
        names.append((await finished(edges, created.run.name)).name)
    return names


def still_running(database: Path, run_id: str) -> None:
    """Rewinds a finished run to how a crash mid-run leaves it: running, its ending not written."""
    with sqlite3.connect(database) as conn:
        (body,) = conn.execute("SELECT body FROM runs WHERE id=?", (run_id,)).fetchone()
        run = run_pb2.Run.FromString(body)
        run.state = run_pb2.RUN_STATE_RUNNING
        run.ClearField("outcome")
        run.ClearField("end_time")
        update = "UPDATE runs SET state=?, body=? WHERE id=?"
        conn.execute(update, (run.state, run.SerializeToString(), run_id))
        last = "SELECT MAX(sequence) FROM events WHERE run_id=?"
        conn.execute(f"DELETE FROM events WHERE run_id=? AND sequence=({last})", (run_id, run_id))


def too_deep_run(name: str) -> bytes:
    """What a server without the depth check stored: it encodes, but never decodes."""
    data: Any = {}
    for _ in range(40):
        data = {"k": data}
    run = run_pb2.Run(name=name, state=run_pb2.RUN_STATE_RUNNING)
    json_format.ParseDict(data, run.automate.data, max_recursion_depth=1000)
    return run.SerializeToString()


@pytest.mark.parametrize("garbage", ["bytes", "too_deep"])
async def test_an_unreadable_run_row_is_failed_not_fatal(tmp_path: Path, garbage: str) -> None:
    async with both_edges(tmp_path) as edges:
        first, bad, last = await three_finished_runs(edges)
        bad_id = bad.removeprefix("runs/")
        body = b"\xff\xfe garbage \x00" if garbage == "bytes" else too_deep_run(bad)
        corrupt(
            edges.case.grpc.settings.database_path,
            "UPDATE runs SET body=? WHERE id=?",
            body,
            bad_id,
        )
        assert await edges.list_names() == [last, bad, first]
        for name in (first, last):
            assert (await edges.http.get(f"/v1/{name}")).status_code == 200
        unreadable = await edges.runs.GetRun(run_service_pb2.GetRunRequest(name=bad))
        assert unreadable.run.state == run_pb2.RUN_STATE_FAILED
        assert unreadable.run.outcome.error_code == "RECORD_UNREADABLE"
        rest = await edges.http.get(f"/v1/{bad}")
        assert (
            rest.status_code == 200 and rest.json()["outcome"]["errorCode"] == "RECORD_UNREADABLE"
        )


@pytest.mark.parametrize("garbage", ["bytes", "too_deep"])
async def test_start_up_recovery_survives_unreadable_rows(tmp_path: Path, garbage: str) -> None:
    async with both_edges(tmp_path) as edges:
        first, bad, last = await three_finished_runs(edges)
        database = edges.case.grpc.settings.database_path
    # As after a crash: two runs left active, one of them with a body that no longer decodes,
    # and an event row of the other one damaged.
    running = run_pb2.RUN_STATE_RUNNING
    body = b"\x0a\xff" if garbage == "bytes" else too_deep_run(bad)
    corrupt(database, "UPDATE runs SET state=?, body=? WHERE id=?", running, body, bad[5:])
    still_running(database, last[5:])
    corrupt(database, "UPDATE events SET body=? WHERE run_id=? AND sequence=2", b"\xff", last[5:])
    async with both_edges(tmp_path) as edges:
        assert await edges.list_names() == [last, bad, first]
        recovered = (await edges.runs.GetRun(run_service_pb2.GetRunRequest(name=last))).run
        assert recovered.state == run_pb2.RUN_STATE_FAILED
        assert recovered.outcome.error_code == "SERVER_RESTARTED"
        unreadable = (await edges.runs.GetRun(run_service_pb2.GetRunRequest(name=bad))).run
        assert unreadable.outcome.error_code == "RECORD_UNREADABLE"
        events = await edges.http.get(f"/v1/{last}/events")
        assert events.status_code == 200
        assert "id: 2\n" not in events.text and "id: 1\n" in events.text
        assert "event: error" in events.text or "event: complete" in events.text


async def test_large_runs_never_make_a_page_too_big_to_read(tmp_path: Path) -> None:
    """Runs at the size limits: a default page of them would exceed the 4 MiB a gRPC client
    accepts, so pages stop growing by bytes; every run is still listed, on both edges."""
    async with both_edges(tmp_path) as edges:
        names = []
        for _ in range(14):
            params = params_pb2.AutomateParams(
                task="t" * MAX_TASK_CHARS, data=struct({"blob": "d" * (MAX_DATA_BYTES - 100)})
            )
            created = await edges.runs.CreateRun(run_service_pb2.CreateRunRequest(automate=params))
            names.append((await finished(edges, created.run.name)).name)
        assert await edges.list_names() == names[::-1]  # default 4 MiB receive limit
        first = await edges.runs.ListRuns(run_service_pb2.ListRunsRequest())
        assert 0 < len(first.runs) < len(names) and first.next_page_token


async def test_unreadable_events_are_skipped_by_every_reader(tmp_path: Path) -> None:
    async with both_edges(tmp_path) as edges:
        (name, *_) = await three_finished_runs(edges)
        run = (await edges.runs.GetRun(run_service_pb2.GetRunRequest(name=name))).run
        last = run.last_sequence
        database = edges.case.grpc.settings.database_path
        garbage = "UPDATE events SET body=? WHERE run_id=? AND sequence IN (2, ?)"
        corrupt(database, garbage, b"\xff\xff", name[5:], last)
        stream = edges.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))
        sequences = [item.event.sequence async for item in stream if item.HasField("event")]
        assert sequences == [s for s in range(1, last + 1) if s not in (2, last)]
        replay = await edges.http.get(f"/v1/{name}/events")
        assert replay.status_code == 200 and "id: 1\n" in replay.text
        assert f"id: {last}\n" not in replay.text
