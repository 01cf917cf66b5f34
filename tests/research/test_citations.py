"""Citations checked in code: unknown ids and unfetched links removed and counted, links to
fetched pages turned into ids, claims per page, and segments mapped to source indices."""

from __future__ import annotations

from outrider.server.research.citations import CheckedReport, check_citations

SOURCES = {"S1": "http://web/varroa.html", "S2": "http://web/queen.html"}
URLS = {url: source for source, url in SOURCES.items()}


def check(draft: str) -> CheckedReport:
    return check_citations(draft, SOURCES, URLS)


def test_unknown_ids_and_unfetched_links_are_removed_and_counted() -> None:
    report = check(
        "Mites spread viruses [S1, S7]. Queens live long [S9].\n"
        "See [the survey](http://web/unfetched.pdf) and [mites](http://web/varroa.html)."
    )
    assert report.text == (
        "Mites spread viruses [S1]. Queens live long.\nSee the survey and mites [S1]."
    )
    assert report.removed == ("http://web/unfetched.pdf", "S7", "S9")
    assert report.cited == ("S1",)


def test_cited_pages_are_ordered_by_first_citation_with_their_claims() -> None:
    report = check("- Queens mate in flight [S2].\n- Varroa kills colonies [S1][S2].\nNo cite.")
    assert report.cited == ("S2", "S1")
    assert report.claims == {
        "S2": ["Queens mate in flight.", "Varroa kills colonies."],
        "S1": ["Varroa kills colonies."],
    }


def test_supports_map_report_segments_in_bytes_to_source_indices() -> None:
    text = "Die Königin lebt lange [S2]. Milben schaden [S1, S2]. 3.5 kg Honig."
    report = check(text)
    encoded = report.text.encode()
    spans = [
        (encoded[s.segment.start : s.segment.end].decode(), s.source_indices)
        for s in report.supports
    ]
    assert spans == [("Die Königin lebt lange [S2].", (0,)), ("Milben schaden [S1, S2].", (1, 0))]
    assert all(s.segment.text == span for s, (span, _) in zip(report.supports, spans, strict=True))
