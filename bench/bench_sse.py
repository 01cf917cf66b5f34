"""REST/SSE delivery against a bare Starlette SSE endpoint sending the same bytes.

Outrider's side: one server process (bench/rest_server.py) whose agent emits --events
`agent:reasoned` events as fast as it can, each persisted and fanned out, streamed over
`POST /v1/automate`. The reference (bench/sse_bare.py): uvicorn + Starlette with the same server
settings, streaming the very blocks one of Outrider's runs sent (captured first), one `yield` per
block. The same client (bench/rest_clients.py, which JSON-decodes every event as the SDK does)
counts events from the first to the last. One warm-up each, then the median of --repeat runs,
alternating sides. Goal (issue 16): Outrider at >= 70% of the reference.

Run from the repo root: `.venv/bin/python -m bench.bench_sse [--events N] [--repeat R]`.
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ours, _, rest_port = start_server(Path(tmp) / "data")
        blocks_file = Path(tmp) / "blocks"
        write_blocks(blocks_file, capture_blocks(rest_port, args.events))
        bare, bare_port = start_bare(blocks_file)
        ports = {"outrider": rest_port, "bare": bare_port}
        try:
            rates = alternate(
                lambda side, events: measure("sse", ports[side], events),
                ("outrider", "bare"),
                args.events,
                args.repeat,
                warm_up_events=args.events,
            )
        finally:
            for server in (ours, bare):
                server.terminate()
                server.wait(30)
    report(rates, args.events, args.repeat, ratio=("outrider", "bare"), goal=GOAL)


if __name__ == "__main__":
    main()
