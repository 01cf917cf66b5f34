"""A run's browser lives with the replica executing it: a person at another replica watches its
screen (a relayed frame stream), takes it over, types a second-factor code and hands it back,
every call relayed to the executor; the run completes there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import grpc

from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import browser_control_service_pb2_grpc as bcg
from outrider.v1 import params_pb2, run_service_pb2_grpc
from outrider.v1 import run_service_pb2 as rs
from tests.browser.takeover_kit import (
    CODE,
    CODE_FIELD,
    Followed,
    Person,
    key_events,
    scenario_file,
    watching,
)
from tests.store.test_relay import CLUSTER
from tests.support.harness import ServerProcess
from tests.support.sites import fixture_sites


async def test_a_person_on_another_replica_takes_over_and_hands_back(
    start_replica: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    script, _, _ = scenario_file(tmp_path / "scenario")
    with fixture_sites() as sites:
        executor = start_replica(
            production=True,
            OUTRIDER_MODEL=f"scripted:{script}",
            OUTRIDER_NETWORK_ALLOW=sites.removeprefix("http://"),
            **CLUSTER,
        )
        other = start_replica(**CLUSTER)  # no browser here: it relays
        a = grpc.aio.insecure_channel(f"127.0.0.1:{executor.port}")
        b = grpc.aio.insecure_channel(f"127.0.0.1:{other.port}")
        try:
            params = params_pb2.AutomateParams(
                task="Read my account balance.",
                url=f"{sites}/takeover/verify.html",
                interactive=True,
            )
            created = await run_service_pb2_grpc.RunServiceStub(a).CreateRun(
                rs.CreateRunRequest(automate=params)
            )
            run = created.run.name
            followed = Followed(run_service_pb2_grpc.RunServiceStub(b), run)
            at_b = Person(bcg.BrowserControlServiceStub(b), run)
            async with watching(at_b, 640, 400) as screen:
                await followed.until("takeover_requested")
                await screen.showing("/takeover/verify.html")
                taken = await at_b.take_over()
                await at_b.click(CODE_FIELD)
                await at_b.type(CODE)
                await at_b.send(key_events("Enter"))
                await screen.showing("/takeover/verified.html")
                await at_b.hand_back("Code entered.", taken.name)
                events = await followed.ended()
                await screen.ended()  # the relayed stream ends with the run
        finally:
            await a.close()
            await b.close()
    assert followed.names[-2:] == ["complete", "done"] and events[-2].automate.complete.success
    ended = next(e.takeover_ended for e in events if e.HasField("takeover_ended"))
    assert (ended.ending, ended.driver) == (bc.TAKEOVER_ENDING_HANDED_BACK, "anonymous")
    assert screen.frames and all(f.data[:2] == b"\xff\xd8" for f in screen.frames)
