"""Cancel: explicit and idempotent, on disconnect when asked, never implied by a dropped stream."""

from __future__ import annotations

import grpc

from outrider.server.core.events.names import event_name
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_pb2, run_service_pb2
from tests.support.harness import Harness, eventually
from tests.support.requests import automate_request, collect, names, read_rest


async def get_run(harness: Harness, name: str) -> run_pb2.Run:
    return (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=name))).run


async def first_event_name(call: grpc.aio.UnaryStreamCall) -> str:
    response = await call.read()
    return str(response.event.run)


async def test_cancel_is_idempotent_and_ends_with_the_terminal_events(harness: Harness) -> None:
    call = harness.runs.Automate(automate_request(steps=1, hold=True))
    name = await first_event_name(call)
    cancel = run_service_pb2.CancelRunRequest(name=name, reason="changed my mind")
    first = (await harness.runs.CancelRun(cancel)).run
    second = (await harness.runs.CancelRun(cancel)).run
    assert first.state == second.state == run_pb2.RUN_STATE_CANCELLED
    assert first.outcome.error_code == "CANCELLED"
    events = await collect(
        harness.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))
    )
    assert names(events)[-2:] == ["complete", "done"]
    complete = events[-2].automate.complete
    assert not complete.success
    assert complete.error.code == ae.AUTOMATE_ERROR_CODE_TASK_ABORTED
    assert "changed my mind" in complete.error.message
    assert complete.stats.iterations == 1 and complete.stats.actions == 1
    assert names(events).count("complete") == 1  # the second cancel added nothing
    rest = await read_rest(call)
    assert [event_name(e) for e in rest][-2:] == ["complete", "done"]  # the stream ended too


async def test_cancel_on_disconnect_cancels_the_run(harness: Harness) -> None:
    call = harness.runs.Automate(automate_request(steps=1, hold=True, cancel_on_disconnect=True))
    name = await first_event_name(call)
    call.cancel()

    async def cancelled() -> bool:
        return (await get_run(harness, name)).state == run_pb2.RUN_STATE_CANCELLED

    await eventually(cancelled)
    events = await collect(
        harness.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))
    )
    assert names(events)[-2:] == ["complete", "done"]
    assert "disconnected" in events[-2].automate.complete.error.message


async def test_without_cancel_on_disconnect_the_run_goes_on(harness: Harness) -> None:
    call = harness.runs.Automate(automate_request(steps=20, interval=0.01))
    name = await first_event_name(call)
    call.cancel()

    async def finished() -> bool:
        return (await get_run(harness, name)).state == run_pb2.RUN_STATE_SUCCEEDED

    await eventually(finished)
    events = await collect(
        harness.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))
    )
    assert names(events).count("agent:step") == 20
    assert events[-2].automate.complete.success


async def test_cancel_of_a_finished_run_changes_nothing(harness: Harness) -> None:
    events = await collect(harness.runs.Automate(automate_request(steps=1)))
    run = (await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=events[0].run))).run
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED
    assert run.last_sequence == len(events)


async def test_crashing_agent_fails_the_run_with_terminal_events(harness: Harness) -> None:
    events = await collect(harness.runs.Automate(automate_request(steps=1, crash=True)))
    assert names(events)[-2:] == ["complete", "done"]
    assert events[-2].automate.complete.error.code == ae.AUTOMATE_ERROR_CODE_TASK_FAILED
    assert "Traceback" not in events[-2].automate.complete.error.message
    run = await get_run(harness, events[0].run)
    assert run.state == run_pb2.RUN_STATE_FAILED and run.outcome.error_code == "AGENT_CRASHED"


async def test_research_cancel_ends_with_an_error_event(harness: Harness) -> None:
    call = harness.runs.Research(
        run_service_pb2.ResearchRequest(params={"query": '{"steps": 1, "hold": true}'})
    )
    name = await first_event_name(call)
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=name))
    events = await read_rest(call)
    assert names(events)[-1] == "error"
    assert events[-1].research.error.error.name == "CANCELLED"
