from __future__ import annotations

from tests.support.harness import Harness
from tests.support.requests import automate_request, collect, names


async def test_automate_streams_every_event_with_gapless_sequences(harness: Harness) -> None:
    events = await collect(harness.runs.Automate(automate_request(steps=3)))
    assert names(events) == [
        "task:setup",
        *["agent:step", "agent:action"] * 3,
        "task:completed",
        "complete",
        "done",
    ]
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    assert len({e.run for e in events}) == 1
