"""Statements checked against the pages they cite: a sentence that states a number, date or name
must cite a page holding it (normalised); one that names nothing checkable stays as it is."""

from __future__ import annotations

from outrider.server.research.citations import CheckedReport, check_citations
from outrider.server.research.editing import keep_supported, with_note

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


def note(removed: int) -> str:
    """The note a report opens with when its opening answer was removed."""
    return with_note("", removed)


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
    assert report.text == "The bridge opened on 1932-03-19 [S1].\n- It is painted often [S1].\n"
    assert report.unsupported == (
        "The answer is 42.",  # a number, no citation
        "It was designed by Gustave Eiffel.",  # names the page lacks
        "The arch spans 530 metres.",  # a number the page lacks
        "Ferries began on 19 March 1932.",  # a date of the other page
        "The harbour is busy.",  # a statement without a citation
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
    assert report.text == f"{note(1)}Ferries sail [S2]. Nothing else was found."


def test_without_page_texts_nothing_is_checked() -> None:
    assert check_citations("The answer is 42.", SOURCES, {}).text == "The answer is 42."


PAGE = {
    "S1": "The Corran Bridge, opened in 1968, took most of the traffic. The first regular ferry "
    "sailed on 4 June 1894. COVID-19 spread quickly in 2020 across the United Kingdom. The F-35 "
    "first flew in 2006. GPT-4 was released by OpenAI in March 2023. The ferry costs 42 euros."
}


def test_correct_sentences_with_lead_ins_codes_acronyms_and_links_are_kept() -> None:
    draft = (
        "- **Bridge Opening**: The Corran Bridge opened in 1968 [S1].\n"
        "- **Historic Timeline:** The first regular ferry sailed on 4 June 1894 [S1].\n"
        "- Bridge Opening: the Corran Bridge took most of the traffic [S1].\n"
        "COVID-19 spread quickly in 2020 [S1]. The F-35 first flew in 2006 [S1].\n"
        "GPT-4 was released by OpenAI in March 2023 [S1]. The UK saw rapid spread [S1].\n"
        "The ferry costs 42 euros, see [fares](https://example.com/fares/2024/99) [S1].\n"
    )
    assert keep_supported(draft, PAGE) == (draft, [])


def test_codes_link_texts_and_lead_ins_are_still_checked() -> None:
    draft = (
        "GPT-5 was released by OpenAI in March 2023 [S1]. The F-22 first flew in 2006 [S1].\n"
        "The ferry costs 42 euros, see [the 2031 fares](https://example.com/fares) [S1].\n"
        "- **Corran Bridge**: it took most of the traffic [S1].\n"
        "- **Gustave Eiffel**: built the Corran Bridge, said Gustave Eiffel [S1].\n"
    )
    kept, removed = keep_supported(draft, PAGE)
    assert kept == f"{note(4)}- **Corran Bridge**: it took most of the traffic [S1].\n"
    assert removed == [
        "GPT-5 was released by OpenAI in March 2023.",  # a code the page lacks
        "The F-22 first flew in 2006.",
        "The ferry costs 42 euros, see [the 2031 fares](https://example.com/fares).",
        "**Gustave Eiffel**: built the Corran Bridge, said Gustave Eiffel.",  # a name elsewhere
    ]


def test_spelled_numbers_and_uncited_statements_are_checked_too() -> None:
    draft = (
        "The ferries carried forty-three passengers each [S2]. Aspirin cures every cancer.\n"
        "- the capital of france is lyon.\n"
        "In short, aspirin cures every cancer.\n"
        "Everyone agrees the ferries were the best way to cross, and they still are today\n\n"
        "Ferries sailed until the bridge\nopened [S1]. They were\nslow.\n"
    )
    report = check(draft)
    # A sentence may go on over the next line.
    assert report.text == f"{note(6)}Ferries sailed until the bridge opened [S1].\n"
    assert report.unsupported == (
        "The ferries carried forty-three passengers each.",  # the page says forty-two
        "Aspirin cures every cancer.",
        "the capital of france is lyon.",
        "In short, aspirin cures every cancer.",  # sums up nothing the report cites
        "Everyone agrees the ferries were the best way to cross, and they still are today",
        "They were slow.",
    )


def test_sentences_that_introduce_point_or_sum_up_need_no_citation() -> None:
    draft = (
        "The ferries carried forty-two passengers each [S2], and about two million cars cross "
        "the bridge each month [S1]. It is one of the first crossings [S1].\n"
        "What did the ferries cost? The sources do not say. Nothing else was found.\n"
        "The main changes were these:\n"
        "- Faster crossings\n\n"
        "See the harbour history for details. Overall, cars replaced the\nferries.\n"
    )
    report = check(draft)
    assert (report.text, report.unsupported) == (draft, ())
