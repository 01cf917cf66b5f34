"""build_view on snapshots in Playwright's AI format: the structure a model needs, kept compactly.
(The pages behind these shapes are exercised end to end in test_view.py.)"""

from __future__ import annotations

from outrider.server.browser.page_model import PageFacts, build_view
from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets

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
    start = lines.index(' table "Orders":')
    assert lines[start + 1 : start + 4] == [
        "  caption: Open orders",
        "  columns: Order | Total",
        '  row [E8]: link "A-1" [E10] | $5',  # a clickable row keeps its ref
    ]


def test_link_targets_and_unseen_text_are_left_out() -> None:
    plain = view()
    assert "/url" not in plain and ' link "Help" [E13]\n' in plain
    assert "Skip to content" in plain
    assert "Skip to content" not in view(PageFacts(hidden_texts=frozenset({"Skip to content"})))


def test_comboboxes_get_their_notes_and_an_unnamed_modal_still_comes_first() -> None:
    text = view(PageFacts(modal="", combobox_notes={"Size": "[editable]"}))
    lines = text.splitlines()
    assert lines[0].startswith("[modal dialog open")
    assert lines[1:3] == [" dialog:", '  button "Close" [E16]']
    assert lines[3] == "[behind the dialog, inert:]"
    assert ' combobox "Size" [editable]' in text and "[E14]" not in text  # inert: no refs
