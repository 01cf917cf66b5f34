"""Interactive form data over the bidirectional stream: validation error, re-request, and a
password that reaches the page but no event, log line, database row or model prompt."""

from __future__ import annotations

import logging

import pytest

from outrider.server.core.events.names import event_name
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from tests.browser.conftest import BrowserCase, BrowserCaseFactory
from tests.support.outbox import interactive_automate

CANARY = "Canary-Pw-7731-zq"
EMAIL = "ada.canary@example.com"


def answer(request_id: str, fields: list[ae.FormField], email: str) -> isv.InteractRequest:
    values = {ae.FORM_FIELD_TYPE_EMAIL: email, ae.FORM_FIELD_TYPE_PASSWORD: CANARY}
    return isv.InteractRequest(
        form_data=isv.FormDataAnswer(
            request_id=request_id,
            fields=[ip.FieldValue(ref=f.ref, value=values[f.field_type]) for f in fields],
        )
    )


async def run_login(case: BrowserCase) -> list[object]:
    outbox = interactive_automate("Log me in.", f"{case.sites}/browser/login.html")
    events = []
    async for response in case.harness.interactions.Interact(outbox):
        if not response.HasField("event"):
            continue
        events.append(response.event)
        automate = response.event.automate
        if automate.HasField("interactive_form_data_request"):
            request = automate.interactive_form_data_request
            outbox.send(answer(request.request_id, list(request.fields), "not-an-email"))
        elif automate.HasField("interactive_form_data_error"):
            error = automate.interactive_form_data_error
            outbox.send(answer(error.request_id, list(error.fields), EMAIL))
    outbox.close()
    return events


async def test_form_data_with_a_validation_error_and_a_secret_password(
    browser_case: BrowserCaseFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    case = await browser_case("interactive_login.yaml")
    events = await run_login(case)
    seen = [event_name(e) for e in events]
    assert seen[-2:] == ["complete", "done"] and events[-2].automate.complete.success, seen
    request = next(
        e.automate.interactive_form_data_request
        for e in events
        if e.automate.HasField("interactive_form_data_request")
    )
    by_type = {f.field_type: f for f in request.fields}
    assert by_type[ae.FORM_FIELD_TYPE_PASSWORD].label == "Password"
    assert by_type[ae.FORM_FIELD_TYPE_PASSWORD].required
    assert request.page_title == "Member login" and request.page_url.endswith("/browser/login.html")
    assert request.form_description == "Member login"
    error = next(
        e.automate.interactive_form_data_error
        for e in events
        if e.automate.HasField("interactive_form_data_error")
    )
    email_ref = by_type[ae.FORM_FIELD_TYPE_EMAIL].ref
    assert list(error.field_errors) == [email_ref] and "@" in error.field_errors[email_ref]
    assert error.request_id != request.request_id
    assert_canary_nowhere(case, events, caplog.text)


def assert_canary_nowhere(case: BrowserCase, events: list[object], log_text: str) -> None:
    for secret in (CANARY, EMAIL):
        assert all(secret not in str(event) for event in events), "an event"
        assert secret not in log_text, "a log line"
        prompts = case.transcript.read_text()
        assert secret not in prompts, "a model prompt"
    assert "[redacted]" in prompts  # the filled fields showed up redacted in later snapshots
    case.harness.server.store.flush()
    for path in case.harness.server.settings.data_dir.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert CANARY.encode() not in content and EMAIL.encode() not in content, path
