"""Issue 23, item 5: two replicas on a PostgreSQL primary with a synchronous streaming standby,
given both in a multi-host URL (`target_session_attrs=read-write`). Mid-run, the primary is
stopped as a crash stops it (`pg_ctl stop -m immediate`) and the standby promoted. Every run goes
on on the replica executing it (none is taken over), every watcher on either replica receives
every event once and in order with one `done`, a question asked before the failover is answered
through the other replica after it, and new runs start on both.

Runs: ScriptAgent runs streaming steadily across the failover, one waiting for an approval, and
a research run with the production agent, the scripted model and the fixture web, held inside
its writer's model call until the new primary is up."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
import yaml

from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import (
    interaction_service_pb2_grpc,
    params_pb2,
    run_event_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import SCENARIOS, title_search
from tests.research.web import SearchBehaviour, Server, fake_search_apis, fixture_web
from tests.support.harness import ServerProcess, eventually
from tests.support.pg_replicated import ReplicatedPostgres
from tests.support.requests import automate_request, names

STREAMING = 4  # ScriptAgent runs per replica emitting events across the failover
STEPS, INTERVAL = 120, 0.05  # each run: 240 events over about 6 s
DECIDE = 3.0  # seconds from the primary's crash to the promotion: the replicas wait meanwhile


@dataclass
class Replica:
    process: ServerProcess
    channel: grpc.aio.Channel
    runs: run_service_pb2_grpc.RunServiceStub = field(init=False)
    interactions: interaction_service_pb2_grpc.InteractionServiceStub = field(init=False)

    def __post_init__(self) -> None:
        self.runs = run_service_pb2_grpc.RunServiceStub(self.channel)
        self.interactions = interaction_service_pb2_grpc.InteractionServiceStub(self.channel)


@dataclass
class Watcher:
    """One client following a run on one replica: resumes after its last sequence if the
    stream is broken (counted in `breaks`)."""

    replica: Replica
    run: str
    events: list[run_event_pb2.RunEvent] = field(default_factory=list)
    breaks: list[str] = field(default_factory=list)

    async def follow(self) -> None:
        while True:
            after = self.events[-1].sequence if self.events else 0
            request = run_service_pb2.StreamRunEventsRequest(name=self.run, after_sequence=after)
            try:
                async for response in self.replica.runs.StreamRunEvents(request):
                    if response.HasField("event"):
                        self.events.append(response.event)
                return
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                self.breaks.append(error.details() or "")
                await asyncio.sleep(0.2)

    def done(self) -> bool:
        return "done" in names(self.events)  # (a research run's last event is `complete`)


@pytest.fixture
def web() -> Iterator[Server]:
    with fixture_web() as server:
        yield server


@pytest.fixture
def search_api(web: Server) -> Iterator[Server]:
    with fake_search_apis(SearchBehaviour(title_search(web.url))) as server:
        yield server


def held_research(web: Server, go: Path, into: Path) -> Path:
    """The balanced research scenario, its writer's call held until `go` exists."""
    scenario = yaml.safe_load((SCENARIOS / "research_balanced.yaml").read_text())
    next(t for t in scenario["turns"] if t.get("role") == "writer")["wait_for"] = str(go)
    into.write_text(yaml.safe_dump(scenario).replace("$WEB", web.url))
    return into


@pytest.fixture
async def replicas(
    replicated_postgres: ReplicatedPostgres,
    web: Server,
    search_api: Server,
    tmp_path: Path,
) -> AsyncIterator[list[Replica]]:
    replicated_postgres.ready(synchronous=True)
    env = {
        "OUTRIDER_DATABASE_URL": replicated_postgres.create_database(),
        "OUTRIDER_CLUSTER_SECRET": "promotion-secret-" + "p" * 24,
        "OUTRIDER_FAILOVER_INTERVAL": "1",  # quick to judge: a false takeover would show
        "OUTRIDER_MAX_CONCURRENT_RUNS": "10",
        "OUTRIDER_TEST_RESEARCH_AGENT": "production",
        "OUTRIDER_MODEL": f"scripted:{held_research(web, tmp_path / 'go', tmp_path / 's.yaml')}",
        "OUTRIDER_NETWORK_ALLOW": f"127.0.0.1:{web.port}",
        "OUTRIDER_RESEARCH_SEARCH_PROVIDERS": "searxng",
        "OUTRIDER_RESEARCH_SEARXNG_URL": f"{search_api.url}/searxng",
        "OUTRIDER_RESEARCH_PER_HOST_DELAY": "0",
        "OUTRIDER_RESEARCH_JS_FALLBACK": "false",
    }
    processes = [ServerProcess(tmp_path / f"r{i}", **env) for i in range(2)]
    await asyncio.gather(*(asyncio.to_thread(p.start, 60) for p in processes))
    started = []
    for process in processes:
        process.drain()
        started.append(Replica(process, grpc.aio.insecure_channel(f"127.0.0.1:{process.port}")))
    yield started
    for replica in started:
        await replica.channel.close()
        replica.process.close()


async def start(replica: Replica, **plan: object) -> str:
    request = automate_request(**plan)
    created = await replica.runs.CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    return created.run.name


async def start_research(replica: Replica) -> str:
    params = params_pb2.ResearchParams(
        query="What causes honey bee colony losses?", mode=re_pb.RESEARCH_MODE_BALANCED
    )
    created = await replica.runs.CreateRun(run_service_pb2.CreateRunRequest(research=params))
    return created.run.name


async def approve(replica: Replica, run: str) -> int:
    """Approves the run's pending question through `replica`, as a client does: a call answered
    UNAVAILABLE is sent again. Returns how many times it was."""
    listing = isv.ListInteractionsRequest(run=run)
    for retries in range(150):
        try:
            # A replica may answer UNAVAILABLE until its presence keeper has seen the new primary
            (question,) = (await replica.interactions.ListInteractions(listing)).interactions
            await replica.interactions.DecideApproval(
                isv.DecideApprovalRequest(
                    name=question.name, decision=run_event_pb2.APPROVAL_DECISION_APPROVE
                )
            )
            return retries
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("the approval was refused for 30 s")


async def pending(replica: Replica, run: str) -> bool:
    listed = await replica.interactions.ListInteractions(isv.ListInteractionsRequest(run=run))
    return bool(listed.interactions)


def check_history(watcher: Watcher) -> None:
    events, run = watcher.events, watcher.run
    assert [e.sequence for e in events] == list(range(1, len(events) + 1)), run
    last = names(events)[-1]
    assert last in ("done", "complete") and names(events).count(last) == 1, (
        run
    )  # research: complete
    assert "run_resumed" not in names(events), run  # it went on where it was


@pytest.mark.timeout(300)
async def test_runs_and_watchers_go_on_across_a_promotion(
    replicated_postgres: ReplicatedPostgres, replicas: list[Replica], tmp_path: Path
) -> None:
    a, b = replicas
    research = await start_research(a)
    researching = [Watcher(r, research) for r in (a, b)]
    following = [asyncio.create_task(w.follow()) for w in researching]
    await eventually(  # the research run waits in its writer's call
        lambda: all("writing:start" in names(w.events) for w in researching), within=120
    )
    streaming = [await start(r, steps=STEPS, interval=INTERVAL) for r in (a, b) * STREAMING]
    asking = await start(a, steps=1, ask_approval=True)
    runs = [*streaming, asking, research]
    watchers = [Watcher(r, run) for run in [*streaming, asking] for r in (a, b)] + researching
    following += [asyncio.create_task(w.follow()) for w in watchers[: -len(researching)]]
    await eventually(lambda: pending(b, asking), within=60)
    await eventually(
        lambda: all(len(w.events) >= 10 for w in watchers if w.run in streaming), within=60
    )
    assert not any(w.done() for w in watchers if w.run in streaming)  # all mid-run

    began = time.monotonic()
    await asyncio.to_thread(replicated_postgres.fail_over, DECIDE)
    promoted = time.monotonic() - began
    (tmp_path / "go").touch()  # the research run's writer answers now
    retries = await approve(b, asking)  # relayed to A, through the new primary

    await asyncio.wait_for(asyncio.gather(*following), 120)
    for watcher in watchers:
        check_history(watcher)
    for run in runs:  # both replicas' watchers got the same events
        a_events, b_events = (w.events for w in watchers if w.run == run)
        assert names(a_events) == names(b_events), run
    statuses = [e.automate.agent_status.message for e in watchers[2 * len(streaming)].events]
    assert "approval APPROVAL_DECISION_APPROVE" in statuses
    for run in runs:
        stored = (await b.runs.GetRun(run_service_pb2.GetRunRequest(name=run))).run
        assert stored.state == run_pb2.RUN_STATE_SUCCEEDED, run

    later = [await start(r, steps=2) for r in (a, b)]  # new starts on the new primary
    for run in later:
        stream = b.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=run))
        assert names([r.event async for r in stream if r.HasField("event")])[-1] == "done"
    print(
        f"promotion took {promoted:.2f} s; approval retried {retries} times; "
        f"streams broken: {sum(len(w.breaks) for w in watchers)}"
    )
    assert not [w.breaks for w in watchers if w.breaks]  # every watcher waited it out
