"""Issue 26, item 1: forms written without ARIA (no aria-invalid, aria-describedby or live
region) that reject the caller's values on submit. The message the page shows after the input,
before it, in a list above the form or in a toast reaches the caller in
interactive:form_data:error, on the field it is about (the form's messages on the fields they
name), and the model learns it; the caller's values go into the page only. Text the submit
brings that is no error (a success note, a character counter, a site-wide banner) stays
quiet. The model is scripted at the wire; the pages run in real Chromium."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from outrider.server.core.events.names import event_name
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import run_event_pb2
from tests.browser.wire_model import act, plan, verdict, wire_harness, wire_model
from tests.conftest import HarnessFactory
from tests.support.outbox import interactive_automate


@dataclass(frozen=True)
class Case:
    page: str
    submit: str  # the submit button's name
    first: dict[str, str]  # field label -> the value the page rejects
    second: dict[str, str]  # field label -> the value it accepts
    errors: dict[str, str]  # field label -> the message the caller gets
    accepted: str  # what the page shows once it accepts


CASES = [
    Case(  # a red <span> after each input, filled by an onsubmit handler
        "after.html",
        "Sign up",
        {"Email address": "lin@example.com", "Password": "short"},
        {"Email address": "lin@example.com", "Password": "long enough now"},
        {"Password": "Password must be at least 8 characters"},
        "All done",
    ),
    Case(  # a message put between the label and the input
        "before.html",
        "Save profile",
        {"Username": "marigold", "City": "Saltmarsh"},
        {"Username": "marigold-two", "City": "Saltmarsh"},
        {"Username": "Sorry, [redacted] is already taken"},
        "All done",
    ),
    Case(  # a list of problems above the form
        "list.html",
        "Book",
        {"Name": "Ann", "Guests": "12"},
        {"Name": "Ann", "Guests": "4"},
        {"Guests": "Please fix the following: Guests must be a number from 1 to 8"},
        "All done",
    ),
    Case(  # a toast a moment later; the form stays, and a toast thanks on success
        "toast.html",
        "Redeem",
        {"Card code": "GIFT-2023"},
        {"Card code": "GIFT-2024"},
        {"Card code": "That code is not valid. Check it and try again."},
        "Balance: 25 pounds",
    ),
]


def answer(
    request_id: str, fields: list[ae.FormField], values: dict[str, str]
) -> isv.InteractRequest:
    return isv.InteractRequest(
        form_data=isv.FormDataAnswer(
            request_id=request_id,
            fields=[ip.FieldValue(ref=f.ref, value=values[f.label]) for f in fields],
        )
    )


@pytest.mark.parametrize("case", CASES, ids=[c.page for c in CASES])
async def test_a_message_shown_without_aria_reaches_the_caller(
    make_harness: HarnessFactory, sites: str, case: Case
) -> None:
    first_error = next(iter(case.errors.values()))
    turns = [
        plan(),
        act(
            "request_input",
            refs=[f'{{{{ref: input "{label}"}}}}' for label in case.first],
            reason="the form's details",
        ),
        act("click", expect=["The user filled"], ref=f'{{{{ref: button "{case.submit}"}}}}'),
        act(
            "click",
            expect=["page rejected the user's values", first_error.split("[")[0]],
            ref=f'{{{{ref: button "{case.submit}"}}}}',
        ),
        act("done", expect=[case.accepted], answer="Sent."),
        verdict(),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model)
        outbox = interactive_automate("Fill in the form for me.", f"{sites}/plainforms/{case.page}")
        events: list[run_event_pb2.RunEvent] = []
        async for response in harness.interactions.Interact(outbox):
            if not response.HasField("event"):
                continue
            events.append(response.event)
            automate = response.event.automate
            if automate.HasField("interactive_form_data_request"):
                request = automate.interactive_form_data_request
                outbox.send(answer(request.request_id, list(request.fields), case.first))
            elif automate.HasField("interactive_form_data_error"):
                error = automate.interactive_form_data_error
                outbox.send(answer(error.request_id, list(error.fields), case.second))
        outbox.close()
    seen = [event_name(e) for e in events]
    assert not model.problems, model.problems
    assert events[-2].automate.complete.success, seen
    assert seen.count("interactive:form_data:error") == 1, seen
    [error] = [
        e.automate.interactive_form_data_error
        for e in events
        if e.automate.HasField("interactive_form_data_error")
    ]
    label_of = {f.ref: f.label for f in error.fields}
    assert {label_of[ref]: text for ref, text in error.field_errors.items()} == case.errors
    described = {f.label: f.description for f in error.fields if f.description}
    assert described == case.errors  # the re-request carries the messages
    for values in (case.first, case.second):  # the caller's values went into the page only
        for value in (v for v in values.values() if len(v) > 4):  # "12" is in any request
            assert value not in model.sent, value
            assert not any(value in str(e) for e in events), value


@dataclass(frozen=True)
class Quiet:
    page: str
    submit: str
    values: dict[str, str]  # field label -> a value the page takes
    shown: str  # what the page shows after the submit, which is no error


QUIET = [
    Quiet(  # a success note in the field's own wrapper, asking for something ("please")
        "thanks.html",
        "Subscribe",
        {"Email address": "lin@example.com"},
        "Thanks! Please check your inbox to confirm.",
    ),
    Quiet(  # a character counter next to the field, brought up to date by the click
        "counter.html",
        "Send message",
        {"Topic": "Opening hours", "Message": "Are you open on Sundays?"},
        "24 / 500 characters",
    ),
    Quiet(  # a site-wide cookie bar that came up after the click, asking to "please choose"
        "banner.html",
        "Save details",
        {"Full name": "Lin Okafor", "Phone": "0123 456 789"},
        "Please choose which ones we may set.",
    ),
]


@pytest.mark.parametrize("case", QUIET, ids=[c.page for c in QUIET])
async def test_text_the_submit_brought_that_is_no_error_stays_quiet(
    make_harness: HarnessFactory, sites: str, case: Quiet
) -> None:
    """Before, each of these became a field's or the form's error: the caller was asked again."""
    turns = [
        plan(),
        act(
            "request_input",
            refs=[f'{{{{ref: "{label}"}}}}' for label in case.values],
            reason="the form's details",
        ),
        act("click", expect=["The user filled"], ref=f'{{{{ref: button "{case.submit}"}}}}'),
        act("done", expect=[case.shown], answer="Sent."),
        verdict(),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model)
        outbox = interactive_automate("Fill in the form for me.", f"{sites}/plainforms/{case.page}")
        seen: list[str] = []
        async for response in harness.interactions.Interact(outbox):
            if not response.HasField("event"):
                continue
            seen.append(event_name(response.event))
            automate = response.event.automate
            if automate.HasField("interactive_form_data_request"):
                request = automate.interactive_form_data_request
                outbox.send(answer(request.request_id, list(request.fields), case.values))
            elif automate.HasField("interactive_form_data_error"):
                error = automate.interactive_form_data_error
                outbox.send(answer(error.request_id, list(error.fields), case.values))
        outbox.close()
    assert not model.problems, model.problems
    assert "interactive:form_data:error" not in seen, seen
    assert "rejected" not in model.sent
