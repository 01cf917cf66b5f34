"""The tabstack SDK against the adapter with the test-only ScriptAgent."""

from __future__ import annotations

import tabstack

from tests.rest.support import RestCase


async def test_sdk_automate_yields_typed_events(rest: RestCase) -> None:
    client = tabstack.AsyncTabstack(api_key="unused", base_url=rest.base_url, max_retries=0)
    stream = await client.agent.automate(task="Click things", data={"steps": 2})
    events = [event async for event in stream]
    names = [e.event for e in events]
    assert names == [
        "task:setup",
        "agent:step",
        "agent:action",
        "agent:step",
        "agent:action",
        "task:completed",
        "complete",
        "done",
    ], names
    step = events[1]
    assert isinstance(step, tabstack.types.automate_event.V1AutomateEventAgentStep)
    assert step.data.current_iteration == 1 and step.data.iteration_id == "it-1"
    assert events[-2].data.final_answer == "done"
    await client.close()
