"""Research reports as HTML (console_edge/report.py): Markdown rendered, whatever a page or the
model wrote kept inert, citations linked to the pages they cite."""

from __future__ import annotations

from outrider.server.console_edge.report import report_html

CITED = {"S1": ("https://bees.example/varroa", "The varroa mite"), "S2": ("https://b.example/", "")}


def test_citations_link_to_their_pages() -> None:
    html = report_html("Mites kill colonies [S1]. Stress adds up [S1, S2].", CITED)
    assert html.count('href="https://bees.example/varroa"') == 2
    assert 'href="https://b.example/"' in html and 'class="citation"' in html
    assert 'rel="noopener noreferrer nofollow"' in html


def test_a_citation_of_an_unknown_source_stays_text() -> None:
    assert "<a" not in report_html("Nobody fetched this [S9].", CITED)


def test_html_scripts_and_foreign_resources_are_inert() -> None:
    report = (
        "<script>alert(1)</script> <img src=x onerror=alert(1)>\n\n"
        "[click](javascript:alert(1)) ![pixel](https://tracker.example/p.png)\n\n"
        '[ok](https://fine.example "see [S1]")'
    )
    html = report_html(report, CITED)
    assert "&lt;script&gt;" in html and "<script" not in html  # shown as text, never run
    assert "<img" not in html and "tracker.example" not in html
    assert 'href="javascript' not in html
    assert 'title="see [S1]"' in html  # a marker inside a link's title is not rewritten


def test_markdown_structure_survives() -> None:
    html = report_html("# Title\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", {})
    for tag in ("<h1>", "<li>", "<table>", "<td>"):
        assert tag in html
