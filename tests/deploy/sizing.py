"""What a replica needs, from the figures docs/benchmarks.md measures, for the deployment files."""

from __future__ import annotations

import re

from tests.support.harness import REPO_ROOT


def needed_memory_mib(concurrent_runs: int) -> float:
    """docs/benchmarks.md measures the idle tree (server, Playwright driver, Chromium) and the
    PSS per concurrent run: a replica must hold the idle tree plus that many runs."""
    table = (REPO_ROOT / "docs" / "benchmarks.md").read_text()
    idle = re.search(r"^\| idle server, Chromium up \| [\d,]+ \| ([\d,]+) \|", table, re.M)
    per_run = re.search(r"^\| 16 concurrent \|(?: [^|]+ \|){4} ([\d.]+) \|", table, re.M)
    assert idle and per_run, "the memory table of docs/benchmarks.md changed shape"
    return float(idle.group(1).replace(",", "")) + concurrent_runs * float(per_run.group(1))


def mebibytes(quantity: str) -> float:
    """A Kubernetes (512Mi, 2Gi) or compose (512M, 2G) memory quantity in MiB."""
    match = re.fullmatch(r"(\d+)(Mi|Gi|M|G)", quantity)
    assert match, quantity
    number, unit = match.groups()
    return float(number) * (1024 if unit in ("Gi", "G") else 1)
