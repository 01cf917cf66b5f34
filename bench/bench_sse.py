"""REST/SSE delivery against a bare Starlette SSE endpoint sending the same bytes.

Outrider's side: one server process (bench/rest_server.py) whose agent emits --events
`agent:reasoned` events as fast as it can, each persisted and fanned out, streamed over
`POST /v1/automate`. The reference (bench/sse_bare.py): uvicorn + Starlette with the same server
settings, streaming the very blocks one of Outrider's runs sent (captured first), one `yield` per
block. The same client (bench/rest_clients.py, which JSON-decodes every event as the SDK does)
counts events from the first to the last. One warm-up each, then the median of --repeat runs,
alternating sides. Goal (issue 16): Outrider at >= 70% of the reference. Each side's server
CPU time per event (user + system, all its threads, from /proc) is printed too: on a shared
machine it says what a side costs better than its rate does.

`--before <dir>` adds a third side, interleaved with the others: the same server run from
another checkout's source tree (e.g. `git archive <commit> | tar -x -C <dir>`), to compare a
change with the code before it in the same run.

Run from the repo root: `.venv/bin/python -m bench.bench_sse [--events N] [--repeat R]
[--before DIR]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

from bench.bench_rest import alternate, measure, report, start_server
from bench.sse_bare import write_blocks

GOAL = 0.7


def capture_blocks(port: int, events: int) -> list[bytes]:
    """The byte blocks of one run's SSE response, split where the edge ends an event."""
    body = {"task": "bench", "data": {"events": events}}
    raw = bytearray()
    with (
        httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as http,
        http.stream("POST", "/v1/automate", json=body) as response,
    ):
        for chunk in response.iter_raw():
            raw += chunk
    head, _, rest = bytes(raw).partition(b"\n")  # the ": outrider runs/..." comment line
    blocks = [block + b"\n\n" for block in rest.split(b"\n\n") if block]
    blocks[0] = head + b"\n" + blocks[0]
    return blocks


def start_bare(blocks_file: Path) -> tuple[subprocess.Popen[str], int]:
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.sse_bare", str(blocks_file)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, int(server.stdout.readline().split()[1])


def start_before(checkout: Path, data_dir: Path) -> tuple[subprocess.Popen[str], int]:
    """The benchmark server of another checkout, its source first on the import path."""
    paths = [checkout / "client", checkout / "server", checkout]
    env = os.environ | {"PYTHONPATH": os.pathsep.join(str(p.resolve()) for p in paths)}
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.rest_server", str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=checkout,
        env=env,
    )
    assert server.stdout is not None
    return server, int(server.stdout.readline().split()[2])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout to measure alongside")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ours, _, rest_port = start_server(Path(tmp) / "data")
        blocks_file = Path(tmp) / "blocks"
        write_blocks(blocks_file, capture_blocks(rest_port, args.events))
        bare, bare_port = start_bare(blocks_file)
        servers = {"outrider": (ours, rest_port), "bare": (bare, bare_port)}
        if args.before is not None:
            servers["before"] = start_before(args.before, Path(tmp) / "before-data")
        cpu: dict[str, list[float]] = {side: [] for side in servers}

        def measure_side(side: str, events: int) -> float:
            server, port = servers[side]
            start = cpu_seconds(server.pid)
            rate = measure("sse", port, events)
            cpu[side].append((cpu_seconds(server.pid) - start) / events)
            return rate

        try:
            rates = alternate(measure_side, tuple(servers), args.events, args.repeat, args.events)
        finally:
            for server, _ in servers.values():
                server.terminate()
                server.wait(30)
    report(rates, args.events, args.repeat, ratio=("outrider", "bare"), goal=GOAL)
    if "before" in rates:
        print(f"before / bare = {_ratio(rates, 'before', 'bare'):.0%}")
    for side, per_event in cpu.items():
        median = statistics.median(per_event[1:])  # not the warm-up
        print(f"{side}: server CPU {median * 1e6:.1f} us per event (median)")


def _ratio(rates: dict[str, list[float]], top: str, bottom: str) -> float:
    return statistics.median(rates[top]) / statistics.median(rates[bottom])


if __name__ == "__main__":
    main()
