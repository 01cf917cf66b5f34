"""The parts of a recipe that need no browser: its key, the page fingerprint, target names read
from the view, and what becomes of a run's values."""

from __future__ import annotations

import pytest

from outrider.server.browser.recipes import (
    Values,
    fingerprint,
    recipe_key,
    refs_named,
    role_and_name,
)
from outrider.server.browser.secrets import Secrets

VIEW = """ h1 "Sign up"
  input "Full name" [active] [E3]: "Ada"
  select "Country" [E4]: Japan (Germany, Japan)
  button "Say \\"hi\\"" [E5]
 p: Welcome"""


def test_the_key_ignores_case_spacing_query_and_scheme_details() -> None:
    one = recipe_key("t", "Find  the Price ", "https://Shop.example/item?id=1")
    assert one == recipe_key("t", "find the price", "https://shop.example/item?id=2")
    assert one != recipe_key("t", "find the price", "https://shop.example/other")
    assert one != recipe_key("t", "find the cost", "https://shop.example/item")
    assert one != recipe_key("u", "find the price", "https://shop.example/item")  # per tenant


def test_the_fingerprint_ignores_refs_and_field_values_not_text() -> None:
    other_refs = VIEW.replace("[E3]", "[E31]").replace('"Ada"', '"Grace"')
    assert fingerprint(VIEW) == fingerprint(other_refs)
    assert fingerprint(VIEW) != fingerprint(VIEW.replace("Welcome", "Goodbye"))
    assert fingerprint(VIEW) != fingerprint(VIEW.replace('"Full name"', '"Name"'))


def test_targets_are_named_by_aria_role_and_accessible_name() -> None:
    assert role_and_name(VIEW, "E3") == ["textbox", "Full name"]
    assert role_and_name(VIEW, "E4") == ["combobox", "Country"]
    assert role_and_name(VIEW, "E5") == ["button", 'Say "hi"']
    assert role_and_name(VIEW, "E9") is None
    twice = VIEW + '\n  button "Say \\"hi\\"" [E6]'
    assert refs_named(VIEW, ["textbox", "Full name"]) == ["E3"]
    assert refs_named(twice, ["button", 'Say "hi"']) == ["E5", "E6"]
    assert refs_named(VIEW, ["button", "Say"]) == []


def test_data_values_become_placeholders_and_secrets_spoil() -> None:
    secrets = Secrets()
    data = secrets.model_view({"name": "Ada Lovelace", "password": "pw-1234-canary", "n": 2})
    values = Values(secrets, data)
    assert values.keepable({"value": "Ada Lovelace"}) == {"value": "{{data:name}}"}
    assert values.keepable("{{secret:password}}") == "{{secret:password}}"
    assert values.keepable(["x", "pw-1234-canary"]) is None
    assert values.keepable("2") == "2"  # too short to tell apart from any other "2"
    later = Secrets()
    again = Values(later, later.model_view({"name": "Grace Hopper", "password": "other"}))
    assert again.restored("{{data:name}} here") == "Grace Hopper here"
    assert again.restored("{{secret:password}}") == "{{secret:password}}"
    lacking = Values(Secrets(), {})
    with pytest.raises(KeyError):
        lacking.restored("{{secret:password}}")


TABLE = """ table: Number | Customer | Action
  INV-7 | Acme | button "Open INV-7" [E12]
  INV-8 | paid | link "Details" [E14] | button "Open INV-8" [active] [E13]
  row [E20]: link "A-1" [E21] | $5
 p: button "Fake" [E12]"""


def test_targets_in_table_cells_are_named_by_their_own_role_and_name() -> None:
    assert role_and_name(TABLE, "E12") == ["button", "Open INV-7"]
    assert role_and_name(TABLE, "E13") == ["button", "Open INV-8"]
    assert role_and_name(TABLE, "E14") == ["link", "Details"]
    assert role_and_name(TABLE, "E21") == ["link", "A-1"]
    assert refs_named(TABLE, ["button", "Open INV-8"]) == ["E13"]
    assert refs_named(TABLE, ["button", "Fake"]) == []  # page text is no element
    assert role_and_name(TABLE, "E20") == ["row", ""]  # a clickable row, as before
    assert role_and_name(' input "Note" [E30]: button "Forged" [E31]', "E31") is None
    # the flat view of a very large page writes its lines as Playwright does
    assert role_and_name('- button "Add item 7" [E40]', "E40") == ["button", "Add item 7"]
