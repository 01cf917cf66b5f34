"""Progress notifications per second over MCP against events per second over gRPC, from the same
server process.

One server process (bench/rest_server.py) serves gRPC, REST and /mcp over one RunManager, with an
agent that emits --events agent:action events as fast as it can (each becomes one MCP progress
notification, "Step 0: click E12"), then complete + done. This process starts a run on each
transport and counts until the end: gRPC `Automate` events (the Python client), or MCP progress
notifications of an `automate` call (the official Python SDK's client, over streamable HTTP, in
the handshake era and in 2026-07-28) until its result. Rate = events (or notifications) over the
call's whole time. Each transport: one warm-up run, then the median of --repeat runs.

Run from the repo root: `.venv/bin/python -m bench.bench_mcp [--events N] [--repeat R]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from mcp import Client

from bench.bench_rest import start_server
from outrider.client import AsyncClient, automate_params

Measure = Callable[[int], Awaitable[float]]


def grpc(port: int) -> Measure:
    async def measure(events: int) -> float:
        async with AsyncClient(f"127.0.0.1:{port}") as client:
            started, count = time.perf_counter(), 0
            params = automate_params("bench", data={"events": events, "actions": True})
            async for _ in client.stream(params):
                count += 1
            assert count >= events, count
            return count / (time.perf_counter() - started)

    return measure


def mcp(port: int, mode: str) -> Measure:
    async def measure(events: int) -> float:
        notified = 0

        async def progress(value: float, total: float | None, message: str | None) -> None:
            nonlocal notified
            notified += 1

        async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
            await client.list_tools()
            started = time.perf_counter()
            arguments = {"task": "bench", "data": {"events": events, "actions": True}}
            result = await client.call_tool("automate", arguments, progress_callback=progress)
            seconds = time.perf_counter() - started
        assert (result.structured_content or {}).get("state") == "succeeded", result
        assert notified >= events, notified
        return notified / seconds

    return measure


async def run(events: int, repeat: int, transports: dict[str, Measure]) -> None:
    rates: dict[str, list[float]] = {name: [] for name in transports}
    for measure in transports.values():
        await measure(events)  # warm-up
    for _ in range(repeat):
        for name, measure in transports.items():
            rates[name].append(await measure(events))
    print(f"{events:,} agent:action events per run; median of {repeat} runs")
    print("| transport | per second (median) | min | max |")
    print("| --- | ---: | ---: | ---: |")
    for name, values in rates.items():
        median = statistics.median(values)
        print(f"| {name} | {median:,.0f} | {min(values):,.0f} | {max(values):,.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        server, grpc_port, rest_port = start_server(Path(data_dir))
        try:
            transports = {
                "gRPC events": grpc(grpc_port),
                "MCP progress, HTTP, 2025-11-25 session": mcp(rest_port, "legacy"),
                "MCP progress, HTTP, 2026-07-28": mcp(rest_port, "auto"),
            }
            asyncio.run(run(args.events, args.repeat, transports))
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
