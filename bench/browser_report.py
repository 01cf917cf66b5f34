"""Formatting for the browser benchmarks: percentiles, markdown tables, the goal verdicts and a
line describing the machine and versions."""

from __future__ import annotations

import math
import os
import platform
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
REPO_ROOT = Path(__file__).resolve().parents[1]


def pct(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..1); NaN without values."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else float("nan")


def ms(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


_last_shown = [time.perf_counter()]


def show(title: str, text: str) -> None:
    """Prints a titled table, with the seconds it took since the previous one."""
    now = time.perf_counter()
    took, _last_shown[0] = now - _last_shown[0], now
    print(f"\n### {title}\n\n{text}\n\n({took:.0f} s)\n", flush=True)


@dataclass(frozen=True)
class Goal:
    goal: str
    measured: str
    met: bool


def goal_table(goals: Sequence[Goal]) -> str:
    rows = [[g.goal, g.measured, "met" if g.met else "**not met**"] for g in goals]
    return table(["goal", "measured", "verdict"], rows)


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _memory_gb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) / 1024 / 1024
    return 0.0


def environment() -> str:
    packages = ("playwright", "grpcio", "tiktoken", "bpe-openai")
    versions = ", ".join(f"{n} {v}" for n in packages if (v := _version(n)))
    chromium = subprocess.run(
        [CHROMIUM, "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return (
        f"{len(os.sched_getaffinity(0))} CPUs ({platform.machine()}), {_memory_gb():.0f} GB RAM, "
        f"Linux {platform.release()}; Python {platform.python_version()}; {chromium}; {versions}"
    )


def source_line() -> str:
    """The commit measured, and whether the browser code had uncommitted changes."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], capture_output=True, text=True, check=False, cwd=REPO_ROOT
        ).stdout.strip()

    dirty = git("status", "--porcelain", "--", "server/outrider/server")
    changed = len(dirty.splitlines())
    state = f"{changed} uncommitted server files" if changed else "clean server tree"
    return f"commit {git('rev-parse', '--short', 'HEAD')} ({state})"


def load_line() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"
