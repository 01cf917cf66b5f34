"""A research run saves no checkpoint where no other replica could resume it (a SQLite store):
its pages would be written at every phase boundary and never read. (On PostgreSQL it saves one
at each boundary: tests/store/test_research_takeover.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from outrider.v1 import params_pb2, run_pb2, run_service_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import SCENARIOS, ResearchCaseFactory
from tests.support.harness import eventually

QUERY = "What causes honey bee colony losses?"


def analyser_asked(transcript: Path) -> bool:
    """Whether the model received the first analysis request (the scripted model writes each
    request to the transcript before it takes its turn)."""
    if not transcript.exists():
        return False
    requests = [json.loads(line) for line in transcript.read_text().splitlines()]
    return any(request["role"] == "analyser" for request in requests)


async def test_a_run_on_sqlite_saves_no_checkpoint(
    research_case: ResearchCaseFactory, tmp_path: Path
) -> None:
    go, transcript = tmp_path / "go", tmp_path / "transcript.jsonl"
    scenario = yaml.safe_load((SCENARIOS / "research_balanced.yaml").read_text())
    next(t for t in scenario["turns"] if t.get("role") == "analyser")["wait_for"] = str(go)
    scenario["transcript"] = str(transcript)
    case = await research_case(scenario)
    params = params_pb2.ResearchParams(query=QUERY, mode=re_pb.RESEARCH_MODE_BALANCED)
    created = await case.harness.runs.CreateRun(run_service_pb2.CreateRunRequest(research=params))
    run_id = created.run.name.removeprefix("runs/")
    # held in its first analysis: past the boundaries of planning, searching and reading
    await eventually(lambda: analyser_asked(transcript), within=30)
    assert case.harness.server.store.load_checkpoint(run_id) == {}
    go.touch()

    async def ended() -> bool:
        request = run_service_pb2.GetRunRequest(name=created.run.name)
        return (await case.harness.runs.GetRun(request)).run.state == run_pb2.RUN_STATE_SUCCEEDED

    await eventually(ended, within=60)
