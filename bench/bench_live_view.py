"""The live view of a run's browser (issue 24, item 5): how far behind the screen a viewer is,
and what the screencast costs with and without a viewer.

An in-process server (production browser agent, Debian Chromium, the scripted takeover scenario)
runs a task whose agent asks for a person; the bench takes over and then, per frame size:

- input to screen: a wheel turn sent with ForwardInput (scrolling the fixture page by 400 px,
  down then up), timed until the WatchScreen stream brings the first frame scrolled there. This
  is a whole loop over loopback gRPC: the input reaching Chromium through DevTools, the page
  repainting, the screencast encoding the frame, and the frame reaching the viewer; how far the
  view lags the screen is at most this.
- Chromium's CPU (all its processes, from /proc) over CPU_SECONDS on a page with an animation,
  with nobody watching and with one viewer at 1280x800: the cost of watching, and that there is
  none for nobody.

With `relay`, the run executes on a server process (replica A) and the viewer and the person are
on another (B), both on a private PostgreSQL cluster: input and frames take the relay (input to
screen only).

Run from the repo root: `.venv/bin/python -m bench.bench_live_view [turns] [relay]`.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import grpc

from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import browser_control_service_pb2_grpc as bcg
from outrider.v1 import params_pb2
from outrider.v1 import run_service_pb2 as rs
from outrider.v1.run_service_pb2_grpc import RunServiceStub
from tests.browser.takeover_kit import (
    Followed,
    Person,
    Screen,
    create_run,
    person,
    scenario_file,
    start_takeover_server,
    stop_takeover_server,
    watching,
)
from tests.support.harness import ServerProcess
from tests.support.postgres import PostgresServer
from tests.support.processes import chromium_processes
from tests.support.sites import fixture_sites

SIZES = ((1280, 800), (640, 400))
CPU_SECONDS = 5.0
TICKS = os.sysconf("SC_CLK_TCK")


async def scrolled_to(screen: Screen, y: float, after: int) -> None:
    while not any(f.scroll_y == y for f in screen.frames[after:]):
        screen.changed.clear()
        await screen.changed.wait()


async def input_to_screen(at_screen: Person, size: tuple[int, int], turns: int) -> list[float]:
    took = []
    async with watching(at_screen, *size) as screen:
        await scrolled_to(screen, 0.0, 0)
        for turn in range(turns):
            target, delta = (400.0, 400.0) if turn % 2 == 0 else (0.0, -400.0)
            seen = len(screen.frames)
            wheel = bcs.WheelInput(x=300, y=300, delta_y=delta)
            started = time.perf_counter()
            await at_screen.send([bcs.InputEvent(wheel=wheel)])
            await scrolled_to(screen, target, seen)
            took.append((time.perf_counter() - started) * 1000)
    return took


def chromium_cpu() -> float:
    total = 0
    for pid in chromium_processes():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime + stime
    return total / TICKS


async def cpu_over(seconds: float) -> float:
    before = chromium_cpu()
    await asyncio.sleep(seconds)
    return chromium_cpu() - before


async def watching_cost(at_screen: Person, sites: str) -> tuple[float, float, int]:
    go = bcs.NavigateInput(action=bcs.NAVIGATE_ACTION_GOTO, url=f"{sites}/takeover/animated.html")
    await at_screen.send([bcs.InputEvent(navigate=go)])
    await asyncio.sleep(1.0)
    idle = await cpu_over(CPU_SECONDS)
    async with watching(at_screen, 1280, 800) as screen:
        await screen.showing("animated.html")
        first = len(screen.frames)
        watched = await cpu_over(CPU_SECONDS)
        frames = len(screen.frames) - first
    return idle, watched, frames


def line(label: str, values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return (
        f"{label:<28} p50 {statistics.median(ordered):6.1f} ms   p95 {p95:6.1f} ms   "
        f"max {ordered[-1]:6.1f} ms   ({len(ordered)} turns)"
    )


async def main(turns: int) -> None:
    with tempfile.TemporaryDirectory() as folder, fixture_sites() as sites:
        server = await start_takeover_server(Path(folder), sites)
        try:
            run = await create_run(server, "Wait for a person.")
            followed = Followed(server, run)
            await followed.until("takeover_requested")
            at_screen = person(server, run)
            await at_screen.take_over()
            for size in SIZES:
                took = await input_to_screen(at_screen, size, turns)
                print(line(f"input to screen {size[0]}x{size[1]}", took))
            idle, watched, frames = await watching_cost(at_screen, sites)
            print(
                f"Chromium CPU over {CPU_SECONDS:.0f} s on an animated page: nobody watching "
                f"{idle:.2f} s, one viewer at 1280x800 {watched:.2f} s ({frames} frames, "
                f"{frames / CPU_SECONDS:.0f}/s)"
            )
            await at_screen.hand_back()
            await followed.ended()
        finally:
            await stop_takeover_server(server)


async def relayed(turns: int, a: int, b: int, sites: str) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{a}") as on_a:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{b}") as on_b:
            params = params_pb2.AutomateParams(
                task="Wait for a person.", url=f"{sites}/takeover/verify.html", interactive=True
            )
            created = await RunServiceStub(on_a).CreateRun(rs.CreateRunRequest(automate=params))
            run = created.run.name
            followed = Followed(RunServiceStub(on_b), run)
            await followed.until("takeover_requested")
            at_b = Person(bcg.BrowserControlServiceStub(on_b), run)
            await at_b.take_over()
            for size in SIZES:
                took = await input_to_screen(at_b, size, turns)
                print(line(f"relayed {size[0]}x{size[1]}", took))
            await at_b.hand_back()
            await followed.ended()


def main_relayed(turns: int) -> None:
    postgres = PostgresServer()
    with tempfile.TemporaryDirectory() as scratch, fixture_sites() as sites:
        script, _, _ = scenario_file(Path(scratch) / "scenario")
        env = {
            "OUTRIDER_DATABASE_URL": postgres.create_database(),
            "OUTRIDER_CLUSTER_SECRET": "bench-live-view-secret-" + "l" * 24,
            "OUTRIDER_LOG_LEVEL": "warning",
        }
        a = ServerProcess(
            Path(scratch) / "a", production=True, OUTRIDER_MODEL=f"scripted:{script}",
            OUTRIDER_NETWORK_ALLOW=sites.removeprefix("http://"), **env,
        )  # fmt: skip
        b = ServerProcess(Path(scratch) / "b", **env)
        try:
            for replica in (a, b):
                replica.start()
                replica.drain()
            asyncio.run(relayed(turns, a.port, b.port, sites))
        finally:
            for replica in (a, b):
                replica.close()
            postgres.close()


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    if sys.argv[2:] == ["relay"]:
        main_relayed(count)
    else:
        asyncio.run(main(count))
