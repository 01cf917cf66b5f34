"""Issue 11.1: a password submitted by GET lands in the next page's URL (and, on a careless site,
its title and links). It must reach no event, no prompt the model is sent, no log line and no
file of the data directory, in any encoding; the pages the agent reports still show where it is.
The model is scripted at the wire (an OpenAI-compatible server)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import run_event_pb2
from tests.browser.secret_checks import leaks_in_files, leaks_in_messages, leaks_in_text
from tests.browser.wire_model import act, plan, verdict, wire_harness, wire_model
from tests.conftest import HarnessFactory
from tests.support.outbox import interactive_automate

# Spaces, '&', '+', '/' and a non-ASCII letter: each is encoded differently in a URL.
PASSWORD = "Zq 7&ü+/Vault-Canary"
USERNAME = "ada.lovelace.canary"


async def test_a_password_sent_by_get_leaks_nowhere(
    make_harness: HarnessFactory, sites: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    turns = [
        plan(),
        act(
            "request_input",
            expect=['button "Sign in"'],
            refs=['{{ref: input "Username"}}', '{{ref: input "Password"}}'],
            reason="your vault login",
        ),
        act("click", expect=["The user filled"], ref='{{ref: button "Sign in"}}'),
        act("done", expect=["Signed in as"], answer="Signed in."),
        verdict(),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model)
        outbox = interactive_automate("Sign in to my vault.", f"{sites}/vault/signin.html")
        events: list[run_event_pb2.RunEvent] = []
        async for response in harness.interactions.Interact(outbox):
            if not response.HasField("event"):
                continue
            events.append(response.event)
            if response.event.automate.HasField("interactive_form_data_request"):
                request = response.event.automate.interactive_form_data_request
                outbox.send(_answer(request))
        outbox.close()
    assert not model.problems, model.problems
    assert events[-2].automate.complete.success, events[-2]

    navigated = [
        e.automate.browser_navigated for e in events if e.automate.HasField("browser_navigated")
    ]
    home = navigated[-1]
    assert "/vault/home.html?user=[redacted]&pw=[redacted]" in home.url, home.url
    assert home.title == "Vault of [redacted] ([redacted])", home.title
    # the prompt the model was actually sent shows the redacted page header too
    header = f"<<<EXTERNAL_CONTENT {sites}/vault/home.html?user=[redacted]&pw=[redacted]"
    assert any(header in r for r in model.requests_text())

    for secret in (PASSWORD, USERNAME):
        assert not leaks_in_messages(secret, events), secret
        assert not leaks_in_text(secret, model.sent), secret
        assert not leaks_in_text(secret, caplog.text), secret
        assert not leaks_in_files(secret, tmp_path / "server0"), secret


def _answer(request: ae.InteractiveFormDataRequest) -> isv.InteractRequest:
    values = {ae.FORM_FIELD_TYPE_TEXT: USERNAME, ae.FORM_FIELD_TYPE_PASSWORD: PASSWORD}
    return isv.InteractRequest(
        form_data=isv.FormDataAnswer(
            request_id=request.request_id,
            fields=[ip.FieldValue(ref=f.ref, value=values[f.field_type]) for f in request.fields],
        )
    )
