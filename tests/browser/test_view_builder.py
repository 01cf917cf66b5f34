"""build_view on snapshots in Playwright's AI format: the structure a model needs, kept compactly.
(The pages behind these shapes are exercised end to end in test_view.py.)"""

from __future__ import annotations

from outrider.server.browser.page_model import PageFacts, build_view
from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets
from outrider.server.browser.view_tree import Overlay

GRID = """- generic [ref=e1]:
  - table "Orders" [ref=e2]:
    - caption [ref=e3]: Open orders
    - rowgroup [ref=e4]:
      - row "Order Total" [ref=e5]:
        - columnheader "Order" [ref=e6]
        - columnheader "Total" [ref=e7]
      - row "A-1 $5" [ref=e8] [cursor=pointer]:
        - cell "A-1" [ref=e9]:
          - link "A-1" [ref=e10] [cursor=pointer]:
            - /url: /orders/a-1
        - cell "$5" [ref=e11]
  - paragraph [ref=e12]: Skip to content
  - link "Help" [ref=e13] [cursor=pointer]:
    - /url: /help
  - combobox "Size" [ref=e14]
  - dialog [ref=e15]:
    - button "Close" [ref=e16]"""


def view(facts: PageFacts | None = None) -> str:
    return build_view(GRID, 1, RefMap(), Secrets(), 10_000, facts).text


def test_a_table_is_its_caption_columns_and_one_line_per_row() -> None:
    lines = view().splitlines()
    start = lines.index('table "Orders": Order | Total')  # the columns on the table's line
    assert lines[start + 1 : start + 3] == [
        " caption: Open orders",
        ' row [E8]: link "A-1" [E10] | $5',  # a clickable row keeps its ref
    ]


def test_link_targets_and_unseen_text_are_left_out() -> None:
    plain = view()
    assert "/url" not in plain and '\nlink "Help" [E13]\n' in plain
    assert "Skip to content" in plain
    assert "Skip to content" not in view(PageFacts(hidden_texts=frozenset({"Skip to content"})))


def test_comboboxes_get_their_notes_and_an_unnamed_modal_still_comes_first() -> None:
    text = view(PageFacts(modal="", combobox_notes={"Size": "[editable]"}))
    lines = text.splitlines()
    assert lines[0] == "[modal dialog open; behind it: 6 elements]"
    assert lines[1:] == ["dialog:", ' button "Close" [E16]']  # the page behind is not listed
    assert "Size" not in text


CHECKOUT = """- generic [ref=e1]:
  - heading "Checkout" [level=1] [ref=e2]
  - paragraph [ref=e3]:
    - button "Pay now" [ref=e4]
  - generic [ref=e5]:
    - text: Loading "prices"
    - button "Dismiss" [ref=e6]"""


def checkout(overlay: Overlay) -> list[str]:
    return build_view(
        CHECKOUT, 1, RefMap(), Secrets(), 10_000, PageFacts(overlay=overlay)
    ).text.splitlines()


def test_an_overlay_covering_the_page_comes_first_and_the_page_under_it_is_summarised() -> None:
    assert checkout(Overlay(('Loading "prices"', "Dismiss"), 1)) == [
        '[an overlay covers the page (h1 "Checkout", 1 more elements): dismiss it or wait]',
        'text: Loading "prices"',  # the view starts at the left edge
        'button "Dismiss" [E6]',
    ]


def test_an_overlay_not_found_alone_in_the_snapshot_leaves_the_page_whole_but_noted() -> None:
    note = "[an overlay covers the page: dismiss it or wait]"
    # texts the snapshot does not have, or a node holding more controls than the overlay has
    for overlay in (Overlay(("Please wait",), 0), Overlay(("Checkout", "Dismiss"), 1)):
        lines = checkout(overlay)
        assert lines[0] == note
        assert ' button "Pay now" [E4]' in lines and ' button "Dismiss" [E6]' in lines


SIGN_UP = """- heading "Newsroom" [level=1] [ref=e1]
- dialog "Sign up" [active] [ref=e2]:
  - heading "Sign up" [level=2] [ref=e3]
  - paragraph [ref=e4]: Get the news first.
  - button "No thanks" [ref=e5]"""


def test_a_heading_that_only_repeats_its_dialogs_name_is_left_out() -> None:
    lines = build_view(SIGN_UP, 1, RefMap(), Secrets(), 10_000, PageFacts(modal="Sign up")).text
    assert lines.splitlines() == [
        '[modal dialog open; behind it: h1 "Newsroom"]',
        'dialog "Sign up":',
        " p: Get the news first.",
        ' button "No thanks" [E5]',
    ]
