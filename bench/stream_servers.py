"""The two servers under test, each run in its own process.

`full_server` is the real OutriderServer (SQLite persistence, fan-out, RunService) with the
BenchAgent registered for RUN_KIND_AUTOMATE. `bare_server` is a plain grpc.aio server whose
RunService.Automate only yields pre-built responses: the ceiling that gRPC itself sets.
Both bind 127.0.0.1:0, report the chosen port through a queue and stop on SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import multiprocessing as mp
import signal
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from multiprocessing.context import SpawnProcess
from pathlib import Path
from typing import Any

import grpc

from bench.stream_agent import BenchAgent
from bench.stream_cpus import Cpus, pin
from bench.stream_events import prebuilt_responses
from outrider.server.core.runs.agent import Agent
from outrider.server.grpc_edge.server import OutriderServer
from outrider.server.settings import Settings
from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc

BARE_RUN = "runs/0000000000000000bare0000"
_SPAWN = mp.get_context("spawn")


async def _until_sigterm() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()


async def _serve_full(ports: Any, data_dir: Path) -> None:
    agent = BenchAgent()
    settings = Settings(
        data_dir=data_dir, host="127.0.0.1", port=0, shutdown_grace=1.0, log_level="WARNING"
    )
    agents: dict[int, Agent] = {run_pb2.RUN_KIND_AUTOMATE: agent}
    server = OutriderServer(settings, agents)
    agent.log = server.runs.log
    ports.put(await server.start())
    await _until_sigterm()
    await server.stop()


class BareRunService(run_service_pb2_grpc.RunServiceServicer):
    """Automate streams the same pre-built responses to every caller, as fast as it can."""

    def __init__(self, events: int) -> None:
        self._responses = prebuilt_responses(BARE_RUN, events)

    async def Automate(
        self, request: run_service_pb2.AutomateRequest, context: Any
    ) -> AsyncIterator[run_service_pb2.AutomateResponse]:
        for response in self._responses:
            yield response


async def _serve_bare(ports: Any, events: int) -> None:
    server = grpc.aio.server()
    run_service_pb2_grpc.add_RunServiceServicer_to_server(BareRunService(events), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    ports.put(port)
    await _until_sigterm()
    await server.stop(1.0)


def _run(main: Callable[[], Coroutine[Any, Any, None]], cpus: Cpus, profile_to: str | None) -> None:
    pin(cpus)
    if profile_to is None:
        asyncio.run(main())
        return
    profiler = cProfile.Profile()
    try:
        profiler.runcall(asyncio.run, main())
    finally:
        profiler.dump_stats(profile_to)


def full_server(ports: Any, data_dir: str, cpus: Cpus, profile_to: str | None) -> None:
    """Process entry point of the Outrider server; `profile_to` dumps a cProfile there."""
    _run(lambda: _serve_full(ports, Path(data_dir)), cpus, profile_to)


def bare_server(ports: Any, events: int, cpus: Cpus, profile_to: str | None) -> None:
    """Process entry point of the bare gRPC server; `profile_to` dumps a cProfile there."""
    _run(lambda: _serve_bare(ports, events), cpus, profile_to)


@contextlib.contextmanager
def server_process(target: Callable[..., None], *args: Any, timeout: float = 60.0) -> Iterator[int]:
    """Starts `target(ports_queue, *args)` in a spawned process; yields its port; stops it."""
    ports = _SPAWN.Queue()
    process: SpawnProcess = _SPAWN.Process(target=target, args=(ports, *args), daemon=True)
    process.start()
    try:
        yield int(ports.get(timeout=timeout))
    finally:
        _stop(process)


def _stop(process: SpawnProcess) -> None:
    if process.is_alive():
        process.terminate()  # SIGTERM: the server shuts down gracefully
        process.join(30)
    if process.is_alive():
        process.kill()
        process.join(10)
