"""The run's one redactor: every encoding of each secret, short values standing alone as URL
parameters, and every string inside a protobuf message (maps, lists, Struct values)."""

from __future__ import annotations

from google.protobuf import struct_pb2

from outrider.server.core.secrets.redaction import REDACTED, Redactor, mask_secret_data
from outrider.v1 import automate_events_pb2 as ae

SECRET = 'Pw 9&ü+/"x'


def redactor(*values: str) -> Redactor:
    found = Redactor()
    for value in values:
        found.add(value)
    return found


def test_every_encoding_of_a_secret_is_redacted() -> None:
    r = redactor(SECRET)
    for written in (
        SECRET,
        "Pw+9%26%C3%BC%2B%2F%22x",  # form-encoded, as a GET form sends it
        "Pw%209%26%c3%bc%2b%2f%22x",  # percent-encoded, lower-case hex
        'Pw 9&\\u00fc+/\\"x',  # JSON-escaped
    ):
        assert r.text(f"before {written} after") == f"before {REDACTED} after", written


def test_short_values_are_redacted_only_where_they_stand_alone_in_a_url() -> None:
    r = redactor("42")
    assert r.text("https://h/p?code=42&n=420#pin=42") == (
        f"https://h/p?code={REDACTED}&n=420#pin={REDACTED}"
    )
    assert r.text("page 42 of 420") == "page 42 of 420"


def test_nothing_changes_without_secrets() -> None:
    event = ae.AutomateEvent(browser_navigated=ae.BrowserNavigated(url="https://h/?pw=x"))
    Redactor().message(event)
    assert event.browser_navigated.url == "https://h/?pw=x"


def test_every_string_of_a_message_is_scrubbed() -> None:
    r = redactor(SECRET)
    request = ae.InteractiveFormDataRequest(
        page_url=f"https://h/?pw={SECRET}",
        page_title=f"Hello {SECRET}",
        fields=[ae.FormField(ref="E1", label="Password", options=[SECRET])],
    )
    error = ae.InteractiveFormDataError(field_errors={"E1": f"{SECRET} is too weak"})
    setup = ae.TaskSetup(task="t")
    setup.data.struct_value.update({"nested": {"list": [SECRET, 1]}})
    for message in (request, error, setup):
        r.message(message)
        assert SECRET not in str(message) and "Pw" not in str(message), message
    assert request.fields[0].label == "Password"


def test_secret_data_is_masked_with_placeholders() -> None:
    data = struct_pb2.Struct()
    data.update({"user": "ada", "password": "pw-1", "card": {"cvv": 123}, "x": {"$secret": "s"}})
    masked, found = mask_secret_data(data)
    assert dict(masked)["user"] == "ada"
    assert dict(masked)["password"] == "{{secret:password}}"
    assert dict(masked["card"])["cvv"] == "{{secret:card.cvv}}"
    assert dict(masked)["x"] == "{{secret:x}}"
    assert found == {"password": "pw-1", "card.cvv": "123", "x": "s"}
