"""Issue 14 for what used to stay on a replica's disk: a browser run's screenshots and the
recipe it leaves are kept in PostgreSQL, so another replica serves the artifact (also after the
executing replica is SIGKILLed with its Chromium) and replays the recipe without the model."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import httpx
import pytest

from outrider.v1 import params_pb2, run_event_pb2, run_service_pb2, run_service_pb2_grpc
from tests.browser.test_recipes import ANSWER, TASK, recorded_run
from tests.browser.wire_model import WireModel, wire_model
from tests.support.harness import ServerProcess
from tests.support.requests import collect
from tests.support.sites import SITES_DIR, fixture_sites

JPEG_START = b"\xff\xd8\xff"


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[str]:
    root = tmp_path / "sites"
    shutil.copytree(SITES_DIR / "recipes", root / "recipes")
    with fixture_sites(root) as base_url:
        yield base_url


def browser_replica(
    start_replica: Callable[..., ServerProcess], model: WireModel, sites: str
) -> ServerProcess:
    return start_replica(
        production=True,
        rest=True,
        OUTRIDER_MODEL=model.spec,
        OUTRIDER_NETWORK_ALLOW=sites.removeprefix("http://"),
        OUTRIDER_RECIPES="true",
    )


async def run_task(
    stub: run_service_pb2_grpc.RunServiceStub, sites: str
) -> list[run_event_pb2.RunEvent]:
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task=TASK, url=f"{sites}/recipes/start.html", trusted_hostnames=["127.0.0.1"]
        ),
        options=params_pb2.RunOptions(recipes=params_pb2.RECIPE_MODE_REPLAY),
    )
    return await collect(stub.Automate(request))


async def read_artifact(stub: run_service_pb2_grpc.RunServiceStub, name: str) -> bytes:
    request = run_service_pb2.ReadArtifactRequest(name=name, chunk_size=4096)
    chunks = [response async for response in stub.ReadArtifact(request)]
    assert [c.offset for c in chunks] == [4096 * i for i in range(len(chunks))]
    assert {c.content_type for c in chunks} == {"image/jpeg"}
    return b"".join(chunk.data for chunk in chunks)


async def fetch_artifact(replica: ServerProcess, name: str) -> bytes:
    """The artifact through the replica's REST edge."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{replica.rest_port}") as http:
        response = await http.get(f"/v1/{name}")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/jpeg"
    return response.content


def screenshots(events: list[run_event_pb2.RunEvent]) -> dict[str, int]:
    """Artifact name -> size, of the run's screenshot events."""
    return {
        e.artifact: e.automate.browser_screenshot_captured.size
        for e in events
        if e.automate.HasField("browser_screenshot_captured")
    }


async def test_another_replica_serves_the_artifacts_and_replays_the_recipe(
    start_replica: Callable[..., ServerProcess], shop: str
) -> None:
    with wire_model(recorded_run()) as model:
        executor = browser_replica(start_replica, model, shop)
        other = browser_replica(start_replica, model, shop)
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{r.port}") for r in (executor, other)]
        on_executor, on_other = (run_service_pb2_grpc.RunServiceStub(c) for c in channels)
        try:
            recorded = await run_task(on_executor, shop)
            asked = len(model.provider.bodies)
            shots = screenshots(recorded)
            assert shots and recorded[-2].automate.complete.final_answer == ANSWER
            for name, size in shots.items():
                here = await read_artifact(on_executor, name)
                assert len(here) == size and here.startswith(JPEG_START)
                assert await read_artifact(on_other, name) == here
                assert await fetch_artifact(other, name) == here

            replayed = await run_task(on_other, shop)
            assert len(model.provider.bodies) == asked  # the replay on B asked the model nothing
            report = next(e.recipe_replayed for e in replayed if e.HasField("recipe_replayed"))
            assert report.steps_replayed == report.steps_total == 4 and not report.handed_over
            assert replayed[-2].automate.complete.final_answer == ANSWER

            kept = {name: await read_artifact(on_other, name) for name in shots}
            executor.kill_group()  # the machine that made them is gone
            for name, data in kept.items():
                assert await read_artifact(on_other, name) == data
                assert await fetch_artifact(other, name) == data
        finally:
            for channel in channels:
                await channel.close()
    assert not model.problems, model.problems
