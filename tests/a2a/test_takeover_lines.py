"""A run's takeover events as the lines an A2A client reads: the task stays working (a message
cannot drive a browser), and its status says that a person is wanted at the browser, where to
take it over, and how it ended."""

from __future__ import annotations

from outrider.server.a2a_edge.progress import progress_line
from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import run_event_pb2


def test_the_agent_s_request_names_its_reason_and_the_console() -> None:
    requested = bc.TakeoverRequested(
        origin=bc.TAKEOVER_ORIGIN_AGENT, reason="A six-digit code was sent to your phone"
    )
    line = progress_line(run_event_pb2.RunEvent(takeover_requested=requested))
    assert line is not None
    assert "A six-digit code was sent to your phone" in line and "console" in line


def test_a_person_s_takeover_and_its_endings() -> None:
    person = bc.TakeoverRequested(origin=bc.TAKEOVER_ORIGIN_PERSON, requested_by="alpha-1")
    started = bc.TakeoverStarted(driver="alpha-1")
    lines = [
        progress_line(event)
        for event in (
            run_event_pb2.RunEvent(takeover_requested=person),
            run_event_pb2.RunEvent(takeover_started=started),
            ended(bc.TAKEOVER_ENDING_HANDED_BACK, note="Code entered.", driver="alpha-1"),
            ended(bc.TAKEOVER_ENDING_DECLINED, note="not tonight"),
            ended(bc.TAKEOVER_ENDING_EXPIRED, driver="alpha-1"),
            ended(bc.TAKEOVER_ENDING_EXPIRED),
            ended(bc.TAKEOVER_ENDING_RUN_ENDED),
        )
    ]
    assert lines == [
        "alpha-1 is taking over the browser",
        "alpha-1 has the browser; the agent waits",
        "A person handed the browser back (Code entered.); going on",
        "The person declined to take over (not tonight); going on",
        "The person at the browser went quiet; the agent has the browser again",
        "Nobody took over; the agent has the browser again",
        None,  # the run's ending follows
    ]


def ended(ending: int, note: str = "", driver: str = "") -> run_event_pb2.RunEvent:
    return run_event_pb2.RunEvent(
        takeover_ended=bc.TakeoverEnded(ending=ending, note=note, driver=driver)  # type: ignore[arg-type]
    )
