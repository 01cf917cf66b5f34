"""SSE framing byte for byte, headers, heartbeats, resume with Last-Event-ID, and errors before
and after the stream began."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import httpx

from outrider.server.rest_edge import sse, streams
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2, run_pb2
from tests.rest.conftest import RestFactory
from tests.rest.support import RestCase, sse_events
from tests.support.harness import eventually


def test_golden_event_block() -> None:
    event = run_event_pb2.RunEvent(
        run="runs/abc",
        sequence=7,
        automate=ae.AutomateEvent(
            agent_step=ae.AgentStep(current_iteration=2, iteration_id="it-2", timestamp=1.5)
        ),
    )
    assert sse.event_block(event, 3000) == (
        b"id: 7\nevent: agent:step\nretry: 3000\n"
        b'data: {"currentIteration":2,"iterationId":"it-2","timestamp":1.5}\n\n'
    )
    assert sse.event_block(event) == (
        b'id: 7\nevent: agent:step\ndata: {"currentIteration":2,"iterationId":"it-2",'
        b'"timestamp":1.5}\n\n'
    )


def test_cached_token_fields_beyond_the_schema_only_for_callers_who_opted_in() -> None:
    metrics = ae.TaskMetrics(
        total_input_tokens=900, total_cached_input_tokens=600, total_cache_write_input_tokens=200
    )
    event = run_event_pb2.RunEvent(sequence=3, automate=ae.AutomateEvent(task_metrics=metrics))
    plain, opted = sse.event_block(event), sse.event_block(event, opted_in=True)
    assert b'"totalInputTokens":900' in plain and b"Cached" not in plain
    assert b'"totalCachedInputTokens":600,"totalCacheWriteInputTokens":200' in opted


def test_golden_heartbeat_is_one_comment_line_without_a_blank_line() -> None:
    assert sse.heartbeat(12) == b": heartbeat 12\n"


def test_text_with_newlines_stays_on_one_data_line() -> None:
    event = run_event_pb2.RunEvent(
        sequence=1,
        automate=ae.AutomateEvent(agent_reasoned=ae.AgentReasoned(reasoning="a\nb\r\nc")),
    )
    assert sse.event_block(event).count(b"\n") == 4


async def test_golden_stream_bytes_and_headers(rest: RestCase) -> None:
    async with httpx.AsyncClient(base_url=rest.origin) as http:
        response = await http.post("/v1/automate", json={"task": "t", "data": {"steps": 1}})
    run_id = response.headers["outrider-run"].removeprefix("runs/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["x-accel-buffering"] == "no"
    assert response.headers["location"] == f"/v1/runs/{run_id}/events"
    lines = response.content.split(b"\n")
    assert lines[0] == f": outrider runs/{run_id}".encode()
    assert lines[1:4] == [b"id: 1", b"event: task:setup", b"retry: 3000"]
    assert lines[4].startswith(b'data: {"browserName":"script","iterationId":"setup"')
    assert b"retry:" not in b"\n".join(lines[5:])
    assert response.content.endswith(b"id: 6\nevent: done\ndata: {}\n\n")


async def test_heartbeats_while_idle(make_rest: RestFactory) -> None:
    case = await make_rest(heartbeat_interval=0.2)
    async with httpx.AsyncClient(base_url=case.origin) as http:
        # the step's pause outlasts a stream that attaches late under load by a wide margin
        body = {"task": "t", "data": {"steps": 1, "interval": 2.0}}
        response = await http.post("/v1/automate", json=body)
    assert b"\n: heartbeat 3\n" in response.content
    assert b"\n: heartbeat 3\n\n" not in response.content


async def test_a_dropped_stream_resumes_with_last_event_id(rest: RestCase) -> None:
    body = {"task": "t", "data": {"steps": 6, "interval": 0.05}}
    seen: list[int] = []
    async with httpx.AsyncClient(base_url=rest.origin, timeout=10) as http:
        async with http.stream("POST", "/v1/automate", json=body) as response:
            resume_at = response.headers["location"]
            async for block in sse_events(response):
                seen.append(int(block.id or 0))
                if len(seen) == 4:
                    break  # drop the connection mid-run
        run_at = resume_at.removesuffix("/events")

        async def went_on() -> bool:  # the run goes on meanwhile, unwatched
            return int((await http.get(run_at)).json()["lastSequence"]) > seen[-1] + 1

        await eventually(went_on)
        headers = {"Last-Event-ID": str(seen[-1])}
        async with http.stream("GET", resume_at, headers=headers) as response:
            assert response.status_code == 200
            seen += [int(block.id or 0) async for block in sse_events(response)]
    assert seen == list(range(1, len(seen) + 1)) and len(seen) == 16, seen


async def test_resume_with_after_query_and_bad_cursors(rest: RestCase) -> None:
    async with httpx.AsyncClient(base_url=rest.origin) as http:
        started = await http.post("/v1/automate", json={"task": "t", "data": {"steps": 1}})
        resume_at = started.headers["location"]
        tail = await http.get(resume_at, params={"after": 4})
        bad = await http.get(resume_at, headers={"Last-Event-ID": "x"})
        beyond = await http.get(resume_at, params={"after": 99})
        unknown = await http.get("/v1/runs/0123456789ab/events")
    assert [
        b.removeprefix(b"event: ") for b in tail.content.split(b"\n") if b.startswith(b"event")
    ] == [
        b"complete",
        b"done",
    ]
    assert bad.status_code == 400 and bad.json()["error"]["fieldViolations"][0]["field"] == (
        "Last-Event-ID"
    )
    assert beyond.status_code == 400 and beyond.json()["error"]["reason"] == "SEQUENCE_OUT_OF_RANGE"
    assert unknown.status_code == 404


async def test_request_errors_are_http_statuses_with_json_bodies(make_rest: RestFactory) -> None:
    case = await make_rest(max_concurrent_runs=1, max_queued_runs=0, busy_retry_after=2.5)
    async with httpx.AsyncClient(base_url=case.origin, timeout=10) as http:
        missing = await http.post("/v1/automate", json={"maxIterations": "ten"})
        not_json = await http.post(
            "/v1/research", content=b"{", headers={"content-type": "application/json"}
        )
        async with http.stream("POST", "/v1/automate", json={"task": "t", "data": {"hold": True}}):
            busy = await http.post("/v1/automate", json={"task": "t"})
            cancel_all = await http.get("/v1/runs", params={"state": "running"})
            for run in cancel_all.json()["runs"]:
                run_id = run["name"].removeprefix("runs/")
                cancelled = await http.post(f"/v1/runs/{run_id}/cancel", json={"reason": "test"})
        nowhere = await http.get("/v1/nowhere")
    violations = {v["field"] for v in missing.json()["error"]["fieldViolations"]}
    assert missing.status_code == 400 and violations == {"maxIterations"}
    assert not_json.status_code == 400
    assert busy.status_code == 429 and busy.headers["retry-after"] == "3"
    assert busy.json()["error"]["retryAfter"] == 2.5
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    assert nowhere.status_code == 404 and nowhere.json()["error"]["reason"] == "NOT_FOUND"


async def test_a_failure_after_the_stream_began_is_an_error_event_then_the_end() -> None:
    async def items() -> AsyncGenerator[list[run_event_pb2.RunEvent], None]:
        yield [
            run_event_pb2.RunEvent(
                sequence=1, automate=ae.AutomateEvent(agent_status=ae.AgentStatus(message="m"))
            )
        ]
        raise RuntimeError("the store went away")

    run = run_pb2.Run(name="runs/abc", kind=run_pb2.RUN_KIND_AUTOMATE)
    settings = streams.StreamSettings(approval_events=False, retry_ms=1000)
    blocks = [b async for b in streams._body(run, items(), settings)]
    assert blocks[-1].startswith(b'id: 1\nevent: error\ndata: {"error":{"code":"INTERNAL"')
    assert b'"success":false' in blocks[-1] and len(blocks) == 3


async def test_events_available_together_are_written_together() -> None:
    """A batch is one chunk (one write) of whole blocks; `retry:` only on the response's first
    block; our own events left out unless asked for; big batches split at block boundaries."""

    def status(sequence: int, text: str) -> run_event_pb2.RunEvent:
        payload = ae.AutomateEvent(agent_status=ae.AgentStatus(message=text))
        return run_event_pb2.RunEvent(sequence=sequence, automate=payload)

    async def items() -> AsyncGenerator[list[run_event_pb2.RunEvent], None]:
        approval = run_event_pb2.RunEvent(
            sequence=3, approval_requested=run_event_pb2.ApprovalRequested(action="fill")
        )
        yield [status(1, "a"), status(2, "b"), approval, status(4, "c")]
        yield [status(5 + i, "x" * 1000) for i in range(100)]

    run = run_pb2.Run(name="runs/abc", kind=run_pb2.RUN_KIND_AUTOMATE)
    settings = streams.StreamSettings(approval_events=False, retry_ms=1000)
    chunks = [c async for c in streams._body(run, items(), settings)]
    first = chunks[1]
    assert [line for line in first.split(b"\n") if line.startswith(b"id: ")] == [
        b"id: 1",
        b"id: 2",
        b"id: 4",
    ]
    assert first.count(b"retry: 1000") == 1 and first.endswith(b"\n\n")
    big = chunks[2:]
    assert len(big) == 2 and all(c.endswith(b"\n\n") for c in big)
    assert sum(c.count(b"event: agent:status") for c in big) == 100
    assert b"retry:" not in b"".join(big)
