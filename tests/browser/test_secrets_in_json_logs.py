"""The interactive-login canary again, with every log line formatted as JSON at the moment it is
emitted (so `extra=` fields and context are included): the password and the e-mail typed by the
user appear in none of them. Also: both form-data waits are measured."""

from __future__ import annotations

import json

from outrider.server.telemetry.metrics import REGISTRY
from tests.browser.conftest import BrowserCaseFactory
from tests.browser.test_interactive import assert_canary_nowhere, run_login
from tests.telemetry.capture import json_log

RESOLVED_FORMS = {"kind": "form_data", "state": "resolved"}


def resolved_form_waits() -> float:
    return REGISTRY.get_sample_value("outrider_interaction_wait_seconds_count", RESOLVED_FORMS) or 0


async def test_json_logs_of_an_interactive_run_hold_no_typed_value(
    browser_case: BrowserCaseFactory,
) -> None:
    waits = resolved_form_waits()
    case = await browser_case("interactive_login.yaml")
    with json_log() as lines:
        events = await run_login(case)
    assert events[-2].automate.complete.success
    run_id = events[0].run.removeprefix("runs/")
    assert any(line.get("run_id") == run_id for line in lines)
    assert any(line["logger"] == "outrider.access" for line in lines)
    assert_canary_nowhere(case, events, "\n".join(json.dumps(line) for line in lines))
    assert resolved_form_waits() == waits + 2  # the request and the re-request after an error
    assert REGISTRY.get_sample_value("outrider_interactions_pending", {"kind": "form_data"}) == 0
