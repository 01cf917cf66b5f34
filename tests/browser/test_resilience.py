"""Losing the browser: a killed Chromium is replaced mid-run, a dead CDP endpoint is skipped."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.core.events.names import event_name
from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.conftest import BrowserCaseFactory
from tests.browser.test_firewall import PLAN, VALID, act
from tests.support.processes import chromium_processes
from tests.support.requests import collect

DONE = [act("done", answer="Done."), VALID]


async def test_chromium_killed_mid_run_is_relaunched_and_the_run_restarts(
    browser_case: BrowserCaseFactory,
) -> None:
    case = await browser_case(
        {
            "turns": [
                PLAN,
                act("wait", seconds=1),
                act("done", expect=["The browser crashed and was restarted"], answer="Recovered."),
                VALID,
            ]
        }
    )
    call = case.harness.runs.Automate(
        run_service_pb2.AutomateRequest(
            params=params_pb2.AutomateParams(task="Survive.", url=f"{case.sites}/shop/index.html")
        )
    )
    events = []
    async for response in call:
        if not response.HasField("event"):
            continue
        events.append(response.event)
        if response.event.automate.HasField("agent_waiting"):
            for pid in chromium_processes():
                os.kill(pid, signal.SIGKILL)
    seen = [event_name(e) for e in events]
    assert seen[-2:] == ["complete", "done"] and events[-2].automate.complete.success, seen
    reconnected = next(
        e.automate.browser_reconnected for e in events if e.automate.HasField("browser_reconnected")
    )
    assert reconnected.starting_url == f"{case.sites}/shop/index.html"
    assert (reconnected.endpoint_index, reconnected.total) == (1, 1)
    assert seen.index("browser:reconnected") < seen.index("task:completed")


@pytest.fixture
def remote_chromium(tmp_path: Path) -> Iterator[str]:
    """A separate Chromium with a remote-debugging port, as a CDP endpoint would be."""
    process = subprocess.Popen(
        [
            "/usr/bin/chromium",
            "--headless",
            *CHROMIUM_FLAGS,
            "--remote-debugging-port=0",
            "--remote-debugging-address=127.0.0.1",
            f"--user-data-dir={tmp_path / 'profile'}",
            "about:blank",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    try:
        for line in process.stderr:
            found = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if found:
                yield f"http://127.0.0.1:{found.group(1)}"
                break
        else:
            raise RuntimeError("the remote Chromium did not start")
    finally:
        process.kill()
        process.wait(10)
        process.stderr.close()


async def test_a_dead_cdp_endpoint_is_skipped_for_a_live_one(
    browser_case: BrowserCaseFactory, remote_chromium: str
) -> None:
    case = await browser_case(
        {"turns": [PLAN, *DONE]}, browser={"cdp_endpoints": f"http://127.0.0.1:9,{remote_chromium}"}
    )
    events = await collect(
        case.harness.runs.Automate(
            run_service_pb2.AutomateRequest(
                params=params_pb2.AutomateParams(
                    task="Connect.", url=f"{case.sites}/shop/index.html"
                )
            )
        )
    )
    assert events[-2].automate.complete.success
    cycle = next(
        e.automate.cdp_endpoint_cycle for e in events if e.automate.HasField("cdp_endpoint_cycle")
    )
    assert (cycle.attempt, cycle.total) == (1, 2)
    assert cycle.error and "127.0.0.1" not in cycle.error  # the error's name only, never the URL
    connected = next(
        e.automate.cdp_endpoint_connected
        for e in events
        if e.automate.HasField("cdp_endpoint_connected")
    )
    assert (connected.endpoint_index, connected.total) == (2, 2)
    setup = events[0].automate.task_setup
    assert setup.pw_cdp_endpoint_count == 2 and not setup.pw_cdp_endpoints  # count only, no URLs
