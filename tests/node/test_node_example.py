"""examples/node: a Node.js client (@grpc/grpc-js + @grpc/proto-loader on our .proto files) runs an
interactive run of the production browser agent (Chromium, the demo's login page and scripted
model) and handles its turns on the bidi stream: a form request, the re-request after the page
rejected a value, and an approval; or declines."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from outrider.server.demo import SCENARIO, WEB_DIR
from outrider.server.demo.site import DemoSite
from outrider.v1 import run_service_pb2
from tests.client.proxy import CuttableProxy, answer_lost
from tests.conftest import HarnessFactory
from tests.support.harness import REPO_ROOT, Harness

EXAMPLE = REPO_ROOT / "examples" / "node"


def node_ready() -> str:
    """The node binary, with the example's packages installed (npm ci when they are missing)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed (scripts/bootstrap.sh system --test installs it)")
    if not (EXAMPLE / "node_modules" / "@grpc" / "grpc-js").is_dir():
        npm = shutil.which("npm")
        assert npm is not None, "node is installed but npm is not"
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=EXAMPLE,
            check=True,
            timeout=300,
        )
    return node


@pytest.fixture
def demo_site() -> Iterator[DemoSite]:
    site = DemoSite(WEB_DIR, 0)
    site.start()
    yield site
    site.stop()


async def run_example(harness: Harness, site: DemoSite, **env: str) -> tuple[int | None, str]:
    node = node_ready()
    process = await asyncio.create_subprocess_exec(
        node,
        "interactive.js",
        "Log in to the Teapot Shop",
        f"{site.url}/shop/login.html",
        cwd=EXAMPLE,
        env=os.environ | {"OUTRIDER_TARGET": harness.target} | env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=100)
    return process.returncode, output.decode()


async def test_node_client_answers_a_re_request_and_an_approval(
    make_harness: HarnessFactory, demo_site: DemoSite
) -> None:
    harness = await make_harness(
        production=True,
        model=f"scripted:{SCENARIO}",
        network_allow=f"127.0.0.1:{demo_site.port}",
    )
    rounds = [
        {"Email": "ada@example.com", "Password": "short"},
        {"Email": "ada@example.com", "Password": "long-enough-1"},
    ]
    code, text = await run_example(
        harness, demo_site, OUTRIDER_ANSWERS=json.dumps(rounds), OUTRIDER_APPROVE="once"
    )
    assert code == 0, text
    assert "form requested: Email, Password" in text
    assert "page rejected Password: The password needs at least 8 characters." in text
    assert "approval requested: submit" in text
    assert text.count("accepted") == 3  # two form rounds and the approval
    assert "long-enough-1" not in text  # values go to the server only
    assert text.strip().endswith(
        "final answer: Logged in. Two orders are on their way: a Green Teapot and a Red Mug."
    )


async def test_node_client_declines_when_it_has_no_value(
    make_harness: HarnessFactory, demo_site: DemoSite
) -> None:
    harness = await make_harness(
        production=True,
        model=f"scripted:{SCENARIO}",
        network_allow=f"127.0.0.1:{demo_site.port}",
    )
    code, text = await run_example(
        harness, demo_site, OUTRIDER_ANSWERS=json.dumps({"Email": "ada@example.com"})
    )
    assert code == 0, text
    assert "declining: no value for Password" in text
    assert text.strip().endswith(
        "final answer: Not logged in: you declined to give the login details."
    )


async def test_node_client_sends_its_start_again_when_the_answer_was_lost(
    harness: Harness,
) -> None:
    """The start reaches the server (which starts the run), then the connection breaks before
    any answer: the example sends the same start again, with its request id, and follows that
    run to its end. One run on the server."""
    node = node_ready()
    proxy = CuttableProxy(harness.server.port)
    await proxy.start()
    env = {"OUTRIDER_TARGET": f"127.0.0.1:{proxy.port}", "OUTRIDER_DATA": '{"steps": 1}'}
    process = await asyncio.create_subprocess_exec(
        node,
        "interactive.js",
        "t",
        cwd=EXAMPLE,
        env=os.environ | env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        output, _ = await answer_lost(
            proxy, asyncio.wait_for(process.communicate(), timeout=60), lambda: _runs(harness, 1)
        )
    finally:
        await proxy.stop()
    text = output.decode()
    assert process.returncode == 0, text
    assert "sending it again" in text and text.strip().endswith("final answer: done")
    assert await _runs(harness, 1)


async def _runs(harness: Harness, count: int) -> bool:
    listed = await harness.runs.ListRuns(run_service_pb2.ListRunsRequest())
    return len(listed.runs) == count
