"""CPU per test of the suite, summed per directory: a pytest plugin and its report.

Durations grow with the machine's load; the CPU a test costs does not (much), so this is what
says where the suite's time goes on a shared machine. Counted per test: the CPU of the worker
process and of the child processes it reaped meanwhile (a server process, pip, mypy, a
Chromium whose Playwright driver ended). PostgreSQL, which detaches, is not counted.

    OUTRIDER_SUITE_CPU_DIR=/tmp/suite-cpu ./scripts/test -p bench.suite_cpu
    .venv/bin/python -m bench.suite_cpu /tmp/suite-cpu
"""

from __future__ import annotations

import collections
import json
import os
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ENV_DIR = "OUTRIDER_SUITE_CPU_DIR"


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    folder = os.environ.get(ENV_DIR)
    cpu, wall = _cpu(), time.monotonic()
    yield
    if folder:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        line = {"id": item.nodeid, "cpu": _cpu() - cpu, "wall": time.monotonic() - wall}
        with (Path(folder) / f"cpu-{worker}.jsonl").open("a") as out:
            out.write(json.dumps(line) + "\n")


def main(folder: str) -> None:
    cpu: collections.Counter[str] = collections.Counter()
    wall: collections.Counter[str] = collections.Counter()
    for path in Path(folder).glob("cpu-*.jsonl"):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            directory = "/".join(entry["id"].split("::")[0].split("/")[:2])
            cpu[directory] += entry["cpu"]
            wall[directory] += entry["wall"]
    print(f"{'CPU s':>8} {'test-s':>8}  directory")
    for directory, seconds in cpu.most_common():
        print(f"{seconds:8.1f} {wall[directory]:8.1f}  {directory}")
    print(f"{sum(cpu.values()):8.1f} {sum(wall.values()):8.1f}  all")


if __name__ == "__main__":
    main(sys.argv[1])
