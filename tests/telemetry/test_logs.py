"""OUTRIDER_LOG_FORMAT=json: the production server's log is one JSON object per line, with the
run, trace and span of what each line is about, and an access line per gRPC and REST call."""

from __future__ import annotations

import json
from typing import Any

from tests.telemetry.conftest import BROWSER_TRACE, RESEARCH_TRACE, Observed


def entries(observed: Observed) -> list[dict[str, Any]]:
    return [json.loads(line) for line in observed.log_lines if line.strip()]


def test_every_line_is_one_json_object(observed: Observed) -> None:
    parsed = entries(observed)
    assert parsed and len(parsed) == len([line for line in observed.log_lines if line.strip()])
    for entry in parsed:
        assert {"time", "level", "logger", "message"} <= set(entry), entry
        assert "color_message" not in entry


def test_access_lines_carry_the_callers_trace_and_the_run_they_started(
    observed: Observed,
) -> None:
    access = [e for e in entries(observed) if e["logger"] == "outrider.access"]
    browser_run = observed.browser_events[0].run.removeprefix("runs/")
    grpc = next(e for e in access if e.get("method") == "outrider.v1.RunService/Automate")
    assert (grpc["protocol"], grpc["code"], grpc["trace_id"]) == ("grpc", "OK", BROWSER_TRACE)
    assert grpc["run_id"] == browser_run and grpc["duration_ms"] > 0 and grpc["peer"]
    http = next(e for e in access if e.get("path") == "/v1/research")
    assert (http["protocol"], http["method"], http["status"]) == ("http", "POST", 200)
    assert http["trace_id"] == RESEARCH_TRACE and http["route"] == "/v1/research"
    assert http["run_id"] == next(
        e["run_id"] for e in entries(observed) if e["message"] == "Research run started"
    )


def test_run_lines_name_their_run_and_trace(observed: Observed) -> None:
    ended = [e for e in entries(observed) if e["message"].startswith("run ended")]
    assert {e["trace_id"] for e in ended} == {BROWSER_TRACE, RESEARCH_TRACE}
    assert all(e["run_state"] == "succeeded" and len(e["run_id"]) > 10 for e in ended)


def test_per_request_library_chatter_stays_out_of_the_info_log(observed: Observed) -> None:
    assert not [e for e in entries(observed) if e["logger"] in {"httpx", "httpcore"}]
