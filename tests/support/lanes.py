"""The order of the collected tests, so parallel workers start the long checks side by side.

pytest-xdist's `worksteal` hands worker k the k-th of N contiguous, equal slices of the
collection order, then moves tests from the end of a busy worker's queue to an idle one. With the
long checks (mypy, the fresh-virtualenv tests, schemathesis) all at the front, they fell into the
first slice and ran one after the other on one worker: about 6.5 minutes on a quiet 2-core
machine, longer than the rest of the suite on the three other workers. Here each slice starts
with its share of them, the heaviest (by the estimate on their `long_running` mark) going to the
slice with the least so far; the other tests keep their collection order, so a module's tests
stay together on one worker and its module-scoped server is started once.
"""

from __future__ import annotations

import pytest

DEFAULT_ESTIMATE = 60.0  # seconds, for a `long_running` mark without `seconds=`


def estimate(item: pytest.Item) -> float | None:
    """The marked estimate of a long check in seconds; None for the other tests."""
    mark = item.get_closest_marker("long_running")
    return None if mark is None else float(mark.kwargs.get("seconds", DEFAULT_ESTIMATE))


def slice_sizes(total: int, workers: int) -> list[int]:
    """The sizes of worksteal's first distribution: each idle worker in turn gets the pending
    tests divided by the workers still to serve."""
    sizes, left = [], total
    for served in range(workers):
        size = left // (workers - served)
        sizes.append(size)
        left -= size
    return sizes


def in_lanes(items: list[pytest.Item], workers: int) -> list[pytest.Item]:
    """`items` reordered into `workers` slices, each led by its share of the long checks; with
    fewer than two workers, the long checks first and the rest in collection order."""
    long = sorted((i for i in items if estimate(i) is not None), key=lambda i: -(estimate(i) or 0))
    rest = [item for item in items if estimate(item) is None]
    if workers < 2:
        return long + rest
    heads: list[list[pytest.Item]] = [[] for _ in range(workers)]
    loads = [0.0] * workers
    for item in long:
        lane = loads.index(min(loads))
        heads[lane].append(item)
        loads[lane] += estimate(item) or 0
    ordered: list[pytest.Item] = []
    for head, size in zip(heads, slice_sizes(len(items), workers), strict=True):
        fill = max(size - len(head), 0)
        ordered += head + rest[:fill]
        rest = rest[fill:]
    return ordered + rest
