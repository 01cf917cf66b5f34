"""Issue 11.3: a page that rejects a value only on submit (a message next to the field and
aria-invalid, shown a moment after the submit). The caller gets interactive:form_data:error with
the page's message tied to that field, the field labels and a description of the form (its
legend, not its id); an alert that was on the page before the submit is not taken for an error.
The model is scripted at the wire."""

from __future__ import annotations

from outrider.server.core.events.names import event_name
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import run_event_pb2
from tests.browser.wire_model import act, plan, verdict, wire_harness, wire_model
from tests.conftest import HarnessFactory
from tests.support.outbox import interactive_automate

EMAIL = "lin@example.com"
WEAK, STRONG = "no digits here at all", "now with 1 digit"


def _answer(request_id: str, fields: list[ae.FormField], passphrase: str) -> isv.InteractRequest:
    values = {ae.FORM_FIELD_TYPE_EMAIL: EMAIL, ae.FORM_FIELD_TYPE_PASSWORD: passphrase}
    return isv.InteractRequest(
        form_data=isv.FormDataAnswer(
            request_id=request_id,
            fields=[ip.FieldValue(ref=f.ref, value=values[f.field_type]) for f in fields],
        )
    )


async def test_an_error_shown_after_submit_reaches_the_caller(
    make_harness: HarnessFactory, sites: str
) -> None:
    turns = [
        plan(),
        act(
            "request_input",
            refs=['{{ref: input "Email"}}', '{{ref: input "Passphrase"}}'],
            reason="account details",
        ),
        act("click", expect=["The user filled"], ref='{{ref: button "Open account"}}'),
        act(
            "click",
            expect=["page rejected the user's values", "needs at least one digit"],
            ref='{{ref: button "Open account"}}',
        ),
        act("done", expect=["account is open"], answer="Opened."),
        verdict(),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model)
        outbox = interactive_automate(
            "Open a vault account for me.", f"{sites}/vault/register.html"
        )
        events: list[run_event_pb2.RunEvent] = []
        async for response in harness.interactions.Interact(outbox):
            if not response.HasField("event"):
                continue
            events.append(response.event)
            automate = response.event.automate
            if automate.HasField("interactive_form_data_request"):
                request = automate.interactive_form_data_request
                outbox.send(_answer(request.request_id, list(request.fields), WEAK))
            elif automate.HasField("interactive_form_data_error"):
                error = automate.interactive_form_data_error
                outbox.send(_answer(error.request_id, list(error.fields), STRONG))
        outbox.close()
    seen = [event_name(e) for e in events]
    assert not model.problems, model.problems
    assert events[-2].automate.complete.success, seen
    assert seen.count("interactive:form_data:request") == 1, seen
    assert seen.count("interactive:form_data:error") == 1, seen

    request = next(
        e.automate.interactive_form_data_request
        for e in events
        if e.automate.HasField("interactive_form_data_request")
    )
    assert request.form_description == "Open a vault account"
    error = next(
        e.automate.interactive_form_data_error
        for e in events
        if e.automate.HasField("interactive_form_data_error")
    )
    by_label = {f.label: f for f in error.fields}
    assert set(by_label) == {"Email", "Passphrase"}
    passphrase = by_label["Passphrase"]
    assert dict(error.field_errors) == {passphrase.ref: "The passphrase needs at least one digit."}
    assert passphrase.description == "The passphrase needs at least one digit."
    assert not by_label["Email"].description
    assert error.form_description == "Open a vault account"
    assert "Maintenance" not in str(error)
    # the caller's values went into the page only
    for value in (WEAK, STRONG):
        assert value not in model.sent
        assert not any(value in str(e) for e in events)
