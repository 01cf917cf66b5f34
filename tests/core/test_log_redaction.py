"""Log lines written while a run is active (by any logger, tracebacks included) pass that run's
redactor: a secret from its `data` never reaches a log, literally or percent-encoded."""

from __future__ import annotations

import logging
from urllib.parse import quote_plus

import pytest

from outrider.v1 import run_service_pb2
from tests.support.harness import Harness, eventually
from tests.support.requests import automate_request

SECRET = "Log Canary/Pw+7"


async def test_log_lines_of_any_logger_are_redacted_while_the_run_is_live(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    call = harness.runs.Automate(automate_request(steps=0, hold=True, password=SECRET))
    first = await call.read()
    await eventually(lambda: harness.server.runs.active_count == 1)
    library = logging.getLogger("some.library")
    library.warning("fetched %s", f"https://h.example/login?pw={quote_plus(SECRET)}")
    try:
        raise RuntimeError(f"bad password {SECRET}")
    except RuntimeError:
        library.exception("it failed")
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=first.event.run))
    call.cancel()
    assert "fetched https://h.example/login?pw=[redacted]" in caplog.text
    assert "bad password [redacted]" in caplog.text
    assert SECRET not in caplog.text and quote_plus(SECRET) not in caplog.text
