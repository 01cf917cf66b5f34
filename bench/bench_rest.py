"""Events per second over REST/SSE against gRPC, from the same server process.

One server process (bench/rest_server.py) serves both edges over one RunManager, with an agent
that emits --events agent:reasoned events as fast as it can, then complete + done. For each
transport a client in another process (bench/rest_clients.py) starts a run and counts its events
until `done` (the SSE client also JSON-decodes each event's data, as the SDK does); the rate is
events over the time from the first event to the last. Each transport: one warm-up run, then the
median of --repeat runs, alternating transports. Goal: SSE at >= 50% of gRPC's rate.

Run from the repo root: `.venv/bin/python -m bench.bench_rest [--events N] [--repeat R]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

GOAL = 0.5


def start_server(data_dir: Path) -> tuple[subprocess.Popen[str], int, int]:
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.rest_server", str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    _, grpc_port, rest_port = line.split()
    return server, int(grpc_port), int(rest_port)


def measure(kind: str, port: int, events: int) -> float:
    """Events per second of one run watched by one client process."""
    command = [sys.executable, "-m", "bench.rest_clients", kind, str(port), str(events)]
    result = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    assert result["events"] == events + 2, result
    return float(result["events"] / result["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        server, grpc_port, rest_port = start_server(Path(data_dir))
        try:
            ports = {"grpc": grpc_port, "sse": rest_port}
            rates = alternate(
                lambda kind, events: measure(kind, ports[kind], events),
                ("grpc", "sse"),
                args.events,
                args.repeat,
                warm_up_events=1_000,
            )
        finally:
            server.terminate()
            server.wait(30)
    report(rates, args.events, args.repeat)


def alternate(
    measure_side: Callable[[str, int], float],
    sides: tuple[str, ...],
    events: int,
    repeat: int,
    warm_up_events: int,
) -> dict[str, list[float]]:
    """One warm-up run per side, then `repeat` rounds of one run per side, alternating sides so
    that a change in the machine's load hits both."""
    for side in sides:
        measure_side(side, warm_up_events)
    rates: dict[str, list[float]] = {side: [] for side in sides}
    for _ in range(repeat):
        for side in sides:
            rates[side].append(measure_side(side, events))
    return rates


def report(
    rates: dict[str, list[float]],
    events: int,
    repeat: int,
    ratio: tuple[str, str] = ("sse", "grpc"),
    goal: float = GOAL,
) -> None:
    """A table of the median, min and max rate per side, then the ratio of the two sides'
    medians against the goal."""
    medians = {side: statistics.median(values) for side, values in rates.items()}
    print(f"{events} events per run, median of {repeat} runs each")
    print("| side | events/s (median) | min | max |")
    print("| --- | ---: | ---: | ---: |")
    for side, values in rates.items():
        print(f"| {side} | {medians[side]:,.0f} | {min(values):,.0f} | {max(values):,.0f} |")
    top, bottom = ratio
    value = medians[top] / medians[bottom]
    verdict = "meets" if value >= goal else "misses"
    print(f"{top} / {bottom} = {value:.0%} ({verdict} the goal of {goal:.0%})")


if __name__ == "__main__":
    main()
