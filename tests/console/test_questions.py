"""How a question is drawn and read back (questions.py and its templates): every field type,
required marks, the page's errors next to their fields, and passwords never written back."""

from __future__ import annotations

import re

from outrider.server.console_edge.forms import Form
from outrider.server.console_edge.questions import form_values, question_view
from outrider.server.console_edge.templating import Pages
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip

T = ae.FormFieldType


def asking() -> ip.Interaction:
    fields = [
        ae.FormField(ref="E1", label="Email", field_type=T.FORM_FIELD_TYPE_EMAIL, required=True),
        ae.FormField(
            ref="E2",
            label="Password",
            field_type=T.FORM_FIELD_TYPE_PASSWORD,
            required=True,
            current_value="page-had-this",
        ),
        ae.FormField(
            ref="E3",
            label="Country",
            field_type=T.FORM_FIELD_TYPE_SELECT,
            options=["France", "Japan"],
            description="Where you live",
        ),
        ae.FormField(
            ref="E4",
            label="Plan",
            field_type=T.FORM_FIELD_TYPE_RADIO,
            options=["Free", "Pro"],
            required=True,
        ),
        ae.FormField(ref="E5", label="Newsletter", field_type=T.FORM_FIELD_TYPE_CHECKBOX),
        ae.FormField(ref="E6", label="Notes", field_type=T.FORM_FIELD_TYPE_TEXTAREA),
        ae.FormField(ref="E7", label="Born", field_type=T.FORM_FIELD_TYPE_DATE),
        ae.FormField(ref="E8", label="Age", field_type=T.FORM_FIELD_TYPE_NUMBER),
        ae.FormField(ref="E9", label="Phone", field_type=T.FORM_FIELD_TYPE_PHONE),
        ae.FormField(ref="E10", label="Name", current_value="Ada"),
    ]
    request = ae.InteractiveFormDataRequest(
        fields=fields, form_description="Sign up", page_title="Join", page_url="https://x.example/"
    )
    return ip.Interaction(
        name="interactions/0123456789abcdef01234567",
        kind=ip.INTERACTION_KIND_FORM_DATA,
        state=ip.INTERACTION_STATE_PENDING,
        form_data=request,
    )


def drawn(**view: object) -> str:
    question = question_view(asking(), **view)  # type: ignore[arg-type]
    return Pages().render(
        "question.html", question=question, base="/console", csrf="t", can_answer=True
    )


def field_tag(html: str, ref: str) -> str:
    match = re.search(rf'<(input|select|textarea)[^>]*name="field:{ref}"[^>]*>', html)
    assert match, ref
    return match.group(0)


def test_each_field_type_is_its_own_control() -> None:
    html = drawn()
    expected = {"E1": 'type="email"', "E2": 'type="password"', "E7": 'type="date"',
                "E8": 'type="number"', "E9": 'type="tel"', "E5": 'type="checkbox"',
                "E10": 'type="text"'}  # fmt: skip
    for ref, kind in expected.items():
        assert kind in field_tag(html, ref), ref
    assert field_tag(html, "E3").startswith("<select") and ">Japan</option>" in html
    assert field_tag(html, "E6").startswith("<textarea")
    assert html.count('name="field:E4"') == 2 and "<legend>Plan" in html
    assert 'value="Ada"' in field_tag(html, "E10")  # the page's current value, shown
    for ref in ("E1", "E2"):
        assert "required" in field_tag(html, ref)
    assert "required" not in field_tag(html, "E10")
    assert html.count('<span class="visually-hidden"> (required)</span>') == 3


def test_the_pages_errors_sit_next_to_their_fields() -> None:
    html = drawn(errors={"E1": "Enter an email address with an @."})
    tag = field_tag(html, "E1")
    assert 'aria-invalid="true"' in tag
    described = re.search(r'aria-describedby="([^"]+)"', tag)
    assert described is not None
    note = re.search(rf'<p id="{described.group(1)}" class="field-error">(.*?)</p>', html, re.S)
    assert note is not None and "Enter an email address with an @." in note.group(1)
    assert "Where you live" in html  # a description without an error stays a hint


def test_a_password_is_never_written_back() -> None:
    html = drawn(typed={"E1": "ada@example.com", "E10": "Ada L."}, problems=("E9 is odd",))
    assert "page-had-this" not in html
    assert "value=" not in field_tag(html, "E2")
    assert 'value="ada@example.com"' in field_tag(html, "E1")  # other fields keep what was typed
    assert 'role="alert"' in html and "E9 is odd" in html


def test_a_submitted_form_becomes_one_value_per_field() -> None:
    form = Form(
        [("csrf", "t"), ("field:E1", "a@example.com"), ("field:E2", "pw"), ("field:E3", ""),
         ("field:E4", "Pro"), ("field:E99", "not asked"), ("action", "submit")]
    )  # fmt: skip
    values = dict(form_values(asking(), form))
    assert values == {"E1": "a@example.com", "E2": "pw", "E4": "Pro", "E5": "false"}
    ticked = Form([("field:E5", "true")])
    assert dict(form_values(asking(), ticked))["E5"] == "true"
    assert dict(form_values(asking(), ticked))["E1"] == ""  # required and empty: the core says
