"""The suite's own test order (tests/support/lanes.py): under worksteal's first even split, each
worker's slice starts with its share of the long checks, and the other tests keep their order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest

from tests.support.lanes import in_lanes, slice_sizes


@dataclass
class FakeItem:
    name: str
    seconds: float | None = None  # a long check's estimate; None for the others

    def get_closest_marker(self, name: str) -> Any:
        if name != "long_running" or self.seconds is None:
            return None
        return pytest.mark.long_running(seconds=self.seconds).mark


def ordered(items: list[FakeItem], workers: int) -> list[str]:
    return [item.name for item in in_lanes(cast(list[pytest.Item], items), workers)]


def slices(names: list[str], workers: int) -> list[list[str]]:
    out, start = [], 0
    for size in slice_sizes(len(names), workers):
        out.append(names[start : start + size])
        start += size
    return out


def test_worksteal_slices_are_as_even_as_it_makes_them() -> None:
    assert slice_sizes(1363, 4) == [340, 341, 341, 341]
    assert slice_sizes(3, 4) == [0, 1, 1, 1]


def test_each_worker_starts_with_its_share_of_the_long_checks() -> None:
    items = [FakeItem(f"t{n}") for n in range(20)]
    items[3] = FakeItem("mypy", 90)
    items[4] = FakeItem("ruff", 5)
    items[11] = FakeItem("wheel", 150)
    items[17] = FakeItem("newcomer", 150)
    items[18] = FakeItem("fuzz", 30)
    lanes = slices(ordered(items, 4), 4)
    assert [lane[0] for lane in lanes] == ["wheel", "newcomer", "mypy", "fuzz"]
    assert lanes[3][1] == "ruff"  # the lightest lane takes the small one
    others = [name for lane in lanes for name in lane if name.startswith("t")]
    assert others == [f"t{n}" for n in range(20) if n not in (3, 4, 11, 17, 18)]


def test_without_workers_the_long_checks_come_first() -> None:
    items = [FakeItem("a"), FakeItem("mypy", 90), FakeItem("b"), FakeItem("wheel", 150)]
    assert ordered(items, 0) == ["wheel", "mypy", "a", "b"]
