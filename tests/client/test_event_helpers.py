"""outrider.client's helpers for interactive turns: a re-request reads like a request, and a
question that closed unanswered is named."""

from __future__ import annotations

from outrider.client import closed_unanswered, form_errors, form_request
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2 as rp

FIELDS = [
    ae.FormField(ref="E1", label="Email", required=True),
    ae.FormField(ref="E2", label="Password", required=True),
]


def test_a_re_request_reads_like_a_request_with_the_pages_messages() -> None:
    error = ae.InteractiveFormDataError(
        request_id="r2",
        fields=FIELDS,
        field_errors={"E2": "The password needs at least 8 characters."},
        form_description="Member login",
        page_url="http://shop/login",
    )
    event = rp.RunEvent(automate=ae.AutomateEvent(interactive_form_data_error=error))
    request = form_request(event)
    assert request is not None and request.request_id == "r2"
    assert request.form_description == "Member login" and request.page_url == "http://shop/login"
    assert [(f.ref, f.description) for f in request.fields] == [
        ("E1", ""),
        ("E2", "The password needs at least 8 characters."),
    ]
    assert form_errors(event) == {"E2": "The password needs at least 8 characters."}
    first = ae.InteractiveFormDataRequest(request_id="r1", fields=FIELDS)
    plain = rp.RunEvent(automate=ae.AutomateEvent(interactive_form_data_request=first))
    assert form_request(plain) == first and form_errors(plain) == {}
    assert form_request(rp.RunEvent(automate=ae.AutomateEvent(done=ae.AutomateDone()))) is None


def test_closed_unanswered_names_expired_and_run_ended_questions_only() -> None:
    expired = rp.RunEvent(
        input_resolved=rp.InputResolved(request_id="r1", source=rp.RESOLUTION_SOURCE_EXPIRED)
    )
    ended = rp.RunEvent(
        approval_resolved=rp.ApprovalResolved(
            approval_id="a1", source=rp.RESOLUTION_SOURCE_RUN_ENDED
        )
    )
    answered = rp.RunEvent(
        input_resolved=rp.InputResolved(request_id="r2", source=rp.RESOLUTION_SOURCE_CALLER)
    )
    assert closed_unanswered(expired) == "r1"
    assert closed_unanswered(ended) == "a1"
    assert closed_unanswered(answered) is None
