"""Facts about one element, read from the page in one round trip: what it is, what form it sits
in, and whether that form carries data worth protecting."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playwright.async_api import Locator

from outrider.server.browser.js import load_js
from outrider.v1 import automate_events_pb2 as ae

# Field types whose values are nobody's secret: search boxes, pickers, choices.
HARMLESS_INPUT_TYPES = frozenset(
    {
        "search",
        "date",
        "datetime-local",
        "month",
        "week",
        "time",
        "range",
        "color",
        "checkbox",
        "radio",
        "submit",
        "button",
        "reset",
        "image",
    }
)

_DESCRIBE_JS = load_js("describe_element.js")

_FIELD_TYPES = {
    "email": ae.FORM_FIELD_TYPE_EMAIL,
    "tel": ae.FORM_FIELD_TYPE_PHONE,
    "date": ae.FORM_FIELD_TYPE_DATE,
    "number": ae.FORM_FIELD_TYPE_NUMBER,
    "select": ae.FORM_FIELD_TYPE_SELECT,
    "checkbox": ae.FORM_FIELD_TYPE_CHECKBOX,
    "radio": ae.FORM_FIELD_TYPE_RADIO,
    "textarea": ae.FORM_FIELD_TYPE_TEXTAREA,
    "password": ae.FORM_FIELD_TYPE_PASSWORD,
    "text": ae.FORM_FIELD_TYPE_TEXT,
    "search": ae.FORM_FIELD_TYPE_TEXT,
    "url": ae.FORM_FIELD_TYPE_TEXT,
}


@dataclass(frozen=True)
class ElementInfo:
    tag: str
    type: str
    role: str
    label: str
    required: bool
    value: str
    checked: bool
    options: list[str]
    in_form: bool
    is_submit: bool
    opens_tab: bool
    form_action: str
    form_has_data: bool
    form_label: str
    page_url: str
    name: str = ""  # the name and id attributes find the field again on a re-rendered page
    element_id: str = ""
    form_method: str = ""  # get, post or dialog: how its form is sent (a submitter may say)

    @property
    def is_text_entry(self) -> bool:
        return self.tag == "textarea" or (
            self.tag == "input" and self.type not in HARMLESS_INPUT_TYPES
        )

    @property
    def is_harmless_entry(self) -> bool:
        return self.role == "searchbox" or self.type in HARMLESS_INPUT_TYPES or self.tag == "select"

    @property
    def field_type(self) -> int:
        return _FIELD_TYPES.get(self.type, ae.FORM_FIELD_TYPE_OTHER)


async def describe(locator: Locator, timeout_ms: float) -> ElementInfo:
    raw: dict[str, Any] = await locator.evaluate(
        _DESCRIBE_JS, sorted(HARMLESS_INPUT_TYPES), timeout=timeout_ms
    )
    return ElementInfo(
        tag=raw["tag"],
        type=raw["type"],
        role=raw["role"],
        label=raw["label"],
        required=raw["required"],
        value=raw["value"],
        checked=raw["checked"],
        options=list(raw["options"]),
        in_form=raw["inForm"],
        is_submit=raw["isSubmit"],
        opens_tab=raw["opensTab"],
        form_action=raw["formAction"],
        form_has_data=raw["formHasData"],
        form_label=raw["formLabel"],
        page_url=raw["pageUrl"],
        name=raw["name"],
        element_id=raw["id"],
        form_method=raw["formMethod"],
    )
