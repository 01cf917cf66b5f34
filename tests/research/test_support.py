"""Statements checked against the pages they cite: a sentence that states a number, date or name
must cite a page holding it (normalised); one that names nothing checkable stays as it is."""

from __future__ import annotations

from outrider.server.research.citations import CheckedReport, check_citations

SOURCES = {"S1": "http://web/bridge.html", "S2": "http://web/harbour.html"}
TEXTS = {
    "S1": "Harbour Bridge\nThe Harbour Bridge opened on 19 March 1932 after eight years of work. "
    "It was designed by John Bradfield; its arch spans 503 metres and carries 1,200 tonnes of "
    "paint. About 2 million cars cross it each month.",
    "S2": "Harbour history\nThe first ferry crossed the harbour in 1789. The ferries carried "
    "forty-two passengers each.",
}


def check(draft: str) -> CheckedReport:
    return check_citations(draft, SOURCES, {}, TEXTS)


def test_a_report_its_pages_support_comes_through_untouched() -> None:
    draft = (
        "# The Harbour Bridge\n\n"
        "**Key facts:**\n\n"
        "- The bridge opened in March 1932 [S1]. Its arch spans 503 metres [S1].\n"
        "- It carries 1200 tonnes of paint, and 2,000,000 cars cross it monthly [S1].\n"
        "- Bradfield's design took 8 years to build [S1].\n"
        "- Ferries came first, from 1789, with 42 passengers each [S2].\n\n"
        "This report looks at how the crossing changed. In short, the bridge replaced most "
        "ferry trips.\n\n"
        "| Year | Event |\n| --- | --- |\n"
        "| 1932 | Opened [S1] |\n"
    )
    report = check(draft)
    assert report.text == draft
    assert report.unsupported == ()


def test_uncited_and_unsupported_statements_are_removed_and_counted() -> None:
    draft = (
        "The bridge opened on 1932-03-19 [S1]. The answer is 42.\n"
        "- It was designed by Gustave Eiffel [S1].\n"
        "- The arch spans 530 metres [S1]. It is painted often [S1].\n"
        "Ferries began on 19 March 1932 [S2]. The harbour is busy.\n"
        "Bradfield also built the Story Bridge in Brisbane [S1].\n"
    )
    report = check(draft)
    assert report.text == (
        "The bridge opened on 1932-03-19 [S1].\n- It is painted often [S1].\nThe harbour is busy.\n"
    )
    assert report.unsupported == (
        "The answer is 42.",  # a number, no citation
        "It was designed by Gustave Eiffel.",  # names the page lacks
        "The arch spans 530 metres.",  # a number the page lacks
        "Ferries began on 19 March 1932.",  # a date of the other page
        "Bradfield also built the Story Bridge in Brisbane.",
    )
    assert report.cited == ("S1",) and [s.segment.text for s in report.supports] == [
        "The bridge opened on 1932-03-19 [S1].",
        "- It is painted often [S1].",
    ]


def test_a_first_word_is_a_name_only_where_the_pages_use_it_as_one() -> None:
    texts = {"S1": "The bridge was built by Bradfield and his engineers.", "S2": "Ferries sail."}
    report = check_citations(
        "Bradfield built it [S2]. Ferries sail [S2]. Nothing else was found.",
        SOURCES,
        {},
        texts,
    )
    assert report.unsupported == ("Bradfield built it.",)
    assert report.text == "Ferries sail [S2]. Nothing else was found."


def test_without_page_texts_nothing_is_checked() -> None:
    assert check_citations("The answer is 42.", SOURCES, {}).text == "The answer is 42."
