"""Every URL in the writer's text is checked, whatever its Markdown shape, and a marker after a
question or exclamation mark stays with its sentence."""

from __future__ import annotations

from outrider.server.research.citations import CheckedReport, check_citations

SOURCES = {"S1": "http://tides/tides.html", "S2": "http://tides/lighthouse.html"}
URLS = {url: source for source, url in SOURCES.items()} | {"http://tides/print.html": "S1"}


def check(draft: str) -> CheckedReport:
    return check_citations(draft, SOURCES, URLS)


def spans(report: CheckedReport) -> list[tuple[str, tuple[int, ...]]]:
    """Each support's segment as cut from the report's UTF-8 bytes."""
    encoded = report.text.encode()
    cut = [(encoded[s.segment.start : s.segment.end].decode(), s) for s in report.supports]
    assert all(text == s.segment.text for text, s in cut)
    return [(text, s.source_indices) for text, s in cut]


def test_a_marker_after_a_question_or_exclamation_mark_stays_with_its_sentence() -> None:
    report = check("Do tides rise at night? [S1]. They do! [S2, S9]. Always? [S9].")
    assert report.text == "Do tides rise at night? [S1]. They do! [S2]. Always?"
    assert spans(report) == [("Do tides rise at night? [S1].", (0,)), ("They do! [S2].", (1,))]
    assert report.claims == {"S1": ["Do tides rise at night?"], "S2": ["They do!"]}
    assert report.removed == ("S9", "S9")


def test_bare_urls_are_removed_and_counted_unless_fetched() -> None:
    report = check(
        "Further details are at http://attacker.example/x. Mirror: www.evil.example/m?k=1, "
        "and (see https://attacker.example/a_(b)). The article is http://tides/tides.html."
    )
    assert report.text == "Further details are at. Mirror:, and (see). The article is [S1]."
    assert report.removed == (
        "http://attacker.example/x",
        "www.evil.example/m?k=1",
        "https://attacker.example/a_(b)",
    )
    assert spans(report) == [("The article is [S1].", (0,))]


def test_reference_links_autolinks_images_and_dangling_labels() -> None:
    report = check(
        "Read [the letters][arch], [the print copy][p] and [a lost page][gone].\n"
        "Chart: ![chart](http://attacker.example/c.png) <https://attacker.example/t?token=s3cret>\n"
        "Run [this](javascript:alert(1)). Tides rise [S1][S2].\n"
        "\n"
        "[arch]: http://tides/archive/letters.html 'Letters'\n"
        "[p]: <http://tides/print.html>\n"
    )
    body = report.text
    assert "http" not in body and "[arch]" not in body and "[gone]" not in body
    assert body.startswith("Read the letters, the print copy [S1] and a lost page.\nChart: chart")
    assert "Run this. Tides rise [S1][S2]." in body
    assert set(report.removed) == {
        "http://tides/archive/letters.html",
        "http://attacker.example/c.png",
        "https://attacker.example/t?token=s3cret",
        "javascript:alert(1)",
    }
    assert report.cited == ("S1", "S2")
    assert len(spans(report)) == 2


def test_brackets_that_are_no_links_are_left_alone() -> None:
    report = check("- [x] Tides were checked [S1].\n- [ ] Slack water [unknown].")
    assert report.text == "- [x] Tides were checked [S1].\n- [ ] Slack water [unknown]."
    assert report.removed == ()
