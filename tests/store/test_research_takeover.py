"""A research run taken over after its replica was lost continues from its checkpoint: the
replica that takes it over neither plans, searches nor fetches again what the lost one did, and
the run ends with a cited report. Replicas are real processes with the production research
agent on one PostgreSQL; the model is scripted, the web and the search API are local servers
that count what they are asked."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import grpc
import psycopg
import pytest
import yaml

from outrider.v1 import params_pb2, run_pb2, run_service_pb2, run_service_pb2_grpc
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import SCENARIOS, title_search
from tests.research.events import complete, payloads
from tests.research.web import SearchBehaviour, Server, fake_search_apis, fixture_web
from tests.support.harness import ServerProcess, eventually
from tests.support.requests import names, read_until

QUERY = "What causes honey bee colony losses?"


@pytest.fixture
def web() -> Iterator[Server]:
    with fixture_web() as server:
        yield server


@pytest.fixture
def search_api(web: Server) -> Iterator[Server]:
    with fake_search_apis(SearchBehaviour(title_search(web.url))) as server:
        yield server


@dataclass(frozen=True)
class HoldPoint:
    """Where the executing replica is lost: inside the first call of the scripted `role`, once
    the checkpoint before it is saved (its `stage` and, while iterating, `step`)."""

    role: str
    stage: str
    step: str
    resumed_with: list[str]  # the first events after run_resumed
    iterations_after: list[int]  # of the searches made after run_resumed

    def reached(self, saved: dict[str, Any] | None) -> bool:
        progress = saved["state"]["progress"] if saved else {}
        return progress.get("stage") == self.stage and (
            self.stage != "iterate" or (progress["step"], progress["iteration"]) == (self.step, 1)
        )


HOLD_POINTS = [
    # lost after reading the first pages: analysing starts again, over the pages read
    HoldPoint("analyser", "iterate", "analyse", ["analyzing:start", "analyzing:end"], [2]),
    # lost after following links: the evaluation is asked again
    HoldPoint("evaluator", "iterate", "evaluate", ["evaluating:start", "evaluating:end"], [2]),
    # lost while writing: outline, evaluations and sources come from the checkpoint
    HoldPoint("writer", "write", "", ["writing:start", "writing:end"], []),
]


def held_scenario(web: Server, hold: HoldPoint, go: Path, into: Path) -> Path:
    """The balanced research scenario, its first call of `hold.role` held until `go` exists."""
    scenario = yaml.safe_load((SCENARIOS / "research_balanced.yaml").read_text())
    first = next(t for t in scenario["turns"] if t.get("role") == hold.role)
    first["wait_for"] = str(go)
    into.write_text(yaml.safe_dump(scenario).replace("$WEB", web.url))
    return into


@dataclass
class Replicas:
    processes: list[ServerProcess]
    stubs: list[run_service_pb2_grpc.RunServiceStub]


@pytest.fixture(params=HOLD_POINTS, ids=[h.role for h in HOLD_POINTS])
def hold(request: pytest.FixtureRequest) -> HoldPoint:
    point: HoldPoint = request.param
    return point


@pytest.fixture
async def replicas(
    start_replica: Callable[..., ServerProcess],
    web: Server,
    search_api: Server,
    hold: HoldPoint,
    tmp_path: Path,
) -> AsyncIterator[Replicas]:
    """Two replicas with the production research agent, the scenario held at `hold`."""
    script = held_scenario(web, hold, tmp_path / "go", tmp_path / "scenario.yaml")
    env = {
        "OUTRIDER_TEST_RESEARCH_AGENT": "production",
        "OUTRIDER_FAILOVER_INTERVAL": "0.5",
        "OUTRIDER_MODEL": f"scripted:{script}",
        "OUTRIDER_NETWORK_ALLOW": f"127.0.0.1:{web.port}",
        "OUTRIDER_RESEARCH_SEARCH_PROVIDERS": "searxng",  # every search reaches `search_api`
        "OUTRIDER_RESEARCH_SEARXNG_URL": f"{search_api.url}/searxng",
        "OUTRIDER_RESEARCH_PER_HOST_DELAY": "0",
        "OUTRIDER_RESEARCH_JS_FALLBACK": "false",
    }
    started = [start_replica(**env) for _ in range(2)]
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{p.port}") for p in started]
    yield Replicas(started, [run_service_pb2_grpc.RunServiceStub(c) for c in channels])
    for channel in channels:
        await channel.close()


def checkpoint(url: str, run_id: str) -> dict[str, Any] | None:
    """The state part of the run's checkpoint, as the store holds it."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT body FROM checkpoints WHERE run_id = %s AND part = 'state'", (run_id,)
        ).fetchone()
    return json.loads(row[0]) if row else None


def checkpoint_parts(url: str, run_id: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM checkpoints WHERE run_id = %s", (run_id,))
        return int(row.fetchone()[0])  # type: ignore[index]


def searched(search_api: Server) -> Counter[str]:
    return Counter(parse_qs(urlsplit(path).query)["q"][0] for path in search_api.traffic.paths())


def pages_fetched(web: Server) -> Counter[str]:
    """Page requests; robots.txt is read by each replica's fetcher, so it is left out."""
    return Counter(path for path in web.traffic.paths() if path != "/robots.txt")


async def test_a_research_run_taken_over_continues_from_its_checkpoint(
    replicas: Replicas,
    hold: HoldPoint,
    web: Server,
    search_api: Server,
    postgres_url: str,
    tmp_path: Path,
) -> None:
    params = params_pb2.ResearchParams(query=QUERY, mode=re_pb.RESEARCH_MODE_BALANCED)
    created = await replicas.stubs[0].CreateRun(run_service_pb2.CreateRunRequest(research=params))
    name = created.run.name
    run_id = name.removeprefix("runs/")
    watcher = replicas.stubs[1].StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))
    seen = await read_until(watcher, "planning:end")
    # replica 0 then waits in the held model call
    await eventually(lambda: hold.reached(checkpoint(postgres_url, run_id)), within=60)
    fetched_before = pages_fetched(web)
    replicas.processes[0].kill()  # SIGKILL while its model call is held
    (tmp_path / "go").touch()  # the survivor's model answers at once

    seen += await asyncio.wait_for(read_until(watcher, "run_resumed"), 60)
    resumed = await asyncio.wait_for(read_until(watcher, "complete"), 120)
    seen += resumed
    assert [e.sequence for e in seen] == list(range(1, len(seen) + 1))
    assert names(seen).count("run_resumed") == 1
    # from where it was: the interrupted phase starts again, nothing before it does
    assert names(resumed)[:2] == hold.resumed_with
    assert "start" not in names(resumed) and "planning:start" not in names(resumed)
    assert [p.iteration for p in payloads(resumed, "searching_start")] == hold.iterations_after
    # what the lost replica searched and fetched, the survivor did not ask again
    assert all(count == 1 for count in searched(search_api).values()), searched(search_api)
    assert sorted(searched(search_api)) == [
        "colony collapse disorder causes",
        "neonicotinoid pesticides bees",
        "nosema parasite",
        "varroa mite colony losses",
    ]
    fetched = pages_fetched(web)
    assert all(count == 1 for count in fetched.values()), fetched
    assert fetched_before and set(fetched_before) <= set(fetched)

    report = complete(seen)
    cited = [page.url for page in report.metadata.cited_pages]
    assert cited and all(urlsplit(url).path in fetched for url in cited)
    assert report.metadata.metrics.iterations == 2 and len(report.metadata.gap_evaluations) == 2
    assert report.metadata.outline.direct_answer and report.metadata.research_plan
    assert [list(b.queries) for b in report.metadata.executed_queries] == [
        ["varroa mite colony losses", "colony collapse disorder causes"],
        ["neonicotinoid pesticides bees", "nosema parasite"],
    ]
    run = (await replicas.stubs[1].GetRun(run_service_pb2.GetRunRequest(name=name))).run
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED
    await eventually(lambda: checkpoint_parts(postgres_url, run_id) == 0)  # dropped at the end
