"""The CLI says when a run needs a person at its browser, and when the takeover ended, without
--verbose (nothing else would tell the person at the terminal why the run stopped moving)."""

from __future__ import annotations

from rich.console import Console

from outrider.cli.render import Renderer
from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import run_event_pb2


def test_a_request_for_a_person_and_its_end_are_shown() -> None:
    console = Console(record=True, width=200)
    renderer = Renderer(console, as_json=False)
    requested = bc.TakeoverRequested(
        takeover_id="t1", url="https://bank.example/verify", reason="a code was sent by SMS",
        origin=bc.TAKEOVER_ORIGIN_AGENT,
    )  # fmt: skip
    renderer.event(run_event_pb2.RunEvent(run="runs/r1", takeover_requested=requested))
    ended = bc.TakeoverEnded(takeover_id="t1", ending=bc.TAKEOVER_ENDING_HANDED_BACK)
    renderer.event(run_event_pb2.RunEvent(run="runs/r1", takeover_ended=ended))
    text = console.export_text()
    assert "a person is needed at https://bank.example/verify: a code was sent by SMS" in text
    assert "BrowserControlService.TakeOver runs/r1" in text
    assert "takeover ended handed_back" in text
