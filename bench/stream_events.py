"""The event content every scenario streams, so the full path and the bare baseline carry the
same messages: alternating agent:reasoned / agent:action events with ~200 bytes of text each,
then `complete` and `done`."""

from __future__ import annotations

from outrider.server.core import clock
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2, run_service_pb2

# ~200 bytes of plausible agent text.
REASONING = (
    "The login form is visible and the email field E12 is empty. I will type the address from "
    "the task, then move to the password field, and submit once both are filled and validated."
)
TYPED_VALUE = (
    "Please ship the order to 221B Baker Street, London NW1 6XE, United Kingdom. Leave the "
    "parcel with the concierge if nobody answers; call +44 20 7946 0958 before delivering, thanks."
)


def agent_payload(index: int, timestamp_ms: float) -> ae.AutomateEvent:
    """Event `index` (0-based) of the agent: even ones reason, odd ones act."""
    iteration = f"it-{index // 2 + 1}"
    if index % 2 == 0:
        return ae.AutomateEvent(
            agent_reasoned=ae.AgentReasoned(
                iteration_id=iteration, reasoning=REASONING, timestamp=timestamp_ms
            )
        )
    return ae.AutomateEvent(
        agent_action=ae.AgentAction(
            action="type",
            ref=f"E{index % 97}",
            value=TYPED_VALUE,
            iteration_id=iteration,
            timestamp=timestamp_ms,
        )
    )


def complete_payload(stats: ae.AutomateStats) -> ae.AutomateEvent:
    return ae.AutomateEvent(
        complete=ae.AutomateComplete(success=True, final_answer="done", stats=stats)
    )


def done_payload() -> ae.AutomateEvent:
    return ae.AutomateEvent(done=ae.AutomateDone())


def stats_of(events: int, started_us: int, ended_us: int) -> ae.AutomateStats:
    """Stats whose duration is the time the agent spent emitting its events."""
    return ae.AutomateStats(
        actions=events // 2,
        iterations=(events + 1) // 2,
        start_time=clock.epoch_ms(started_us),
        end_time=clock.epoch_ms(ended_us),
        duration_ms=(ended_us - started_us) / 1000.0,
    )


def all_payloads(events: int) -> list[ae.AutomateEvent]:
    """The whole stream of a run of `events` agent events: those, complete, done."""
    now = clock.now_us()
    payloads = [agent_payload(i, clock.epoch_ms(now)) for i in range(events)]
    payloads.append(complete_payload(stats_of(events, now, now)))
    payloads.append(done_payload())
    return payloads


def prebuilt_responses(run: str, events: int) -> list[run_service_pb2.AutomateResponse]:
    """AutomateResponses wrapping RunEvent envelopes exactly as the server's event log builds
    them (run name, sequence, time), for the bare baseline."""
    responses = []
    for sequence, payload in enumerate(all_payloads(events), start=1):
        envelope = run_event_pb2.RunEvent(
            run=run, sequence=sequence, time=clock.timestamp(clock.now_us()), automate=payload
        )
        responses.append(run_service_pb2.AutomateResponse(event=envelope))
    return responses
