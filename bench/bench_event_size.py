"""How big a browser run's stream is as grpcurl prints it, with and without RunOptions.omit_prompts.

Starts the demo (bundled site, scripted demo model, a real server as a child process), runs the
demo's price task through grpcurl once with prompt bodies and once without, and prints events,
bytes and lines of grpcurl's JSON output.

Run from the repo root: `.venv/bin/python -m bench.bench_event_size`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from outrider.server.demo.environment import Ports, demo_environment

GRPCURL = str(Path(sys.executable).parent / "grpcurl")


def measure(target: str, params: dict[str, object], omit: bool) -> tuple[int, int, int]:
    """(events, bytes, lines) of grpcurl's output for one run."""
    body = json.dumps({"params": params, "options": {"omit_prompts": omit}})
    done = subprocess.run(
        [GRPCURL, "-plaintext", "-d", body, target, "outrider.v1.RunService/Automate"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return done.stdout.count('"sequence"'), len(done.stdout.encode()), done.stdout.count("\n")


def main() -> None:
    with demo_environment(Ports(0, 0, 0)) as demo:
        params = {"task": "Find the price of the Red Mug", "url": f"{demo.web_url}/shop/"}
        print("omit_prompts  events   bytes   lines")
        for omit in (False, True):
            events, size, lines = measure(demo.target, params, omit)
            print(f"{omit!s:<13} {events:>6} {size:>7} {lines:>7}")


if __name__ == "__main__":
    main()
