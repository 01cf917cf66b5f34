"""Issue 41: the statement check strikes what the sources do not say and nothing that they do,
on a corpus of statements in the styles models write (tests/fixtures/statements): bold and
italic lead-ins, labels, headings, lists, tables, quotes, parentheses, sentence-initial adverbs
and prepositions, names with digits, numbers spelled out. The run's summary line gives the
check's precision and recall on it (tests/conftest.py prints it)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.research.statement_corpus import body, check, kept_whole, load, removed_whole, score


def ids(entries: list[dict[str, Any]], key: str) -> list[str]:
    return [f"{index}-{entry[key]}" for index, entry in enumerate(entries)]


@pytest.mark.parametrize("entry", load("kept"), ids=ids(load("kept"), "style"))
def test_a_correct_cited_statement_is_kept(entry: dict[str, str]) -> None:
    checked = check(entry["report"])
    assert kept_whole(entry["report"]), (checked.text, checked.unsupported)


@pytest.mark.parametrize("entry", load("removed"), ids=ids(load("removed"), "why"))
def test_a_false_or_uncited_statement_is_removed(entry: dict[str, str]) -> None:
    checked = check(entry["report"])
    assert removed_whole(entry["report"]), (checked.text, checked.unsupported)


@pytest.mark.parametrize("entry", load("trimmed"), ids=ids(load("trimmed"), "report"))
def test_only_the_false_part_goes_when_the_rest_reads_as_a_sentence(entry: dict[str, Any]) -> None:
    checked = check(entry["report"])
    assert (body(checked.text).strip(), list(checked.unsupported)) == (
        entry["kept"],
        entry["removed"],
    )


def test_the_check_keeps_every_correct_statement_and_removes_every_false_one() -> None:
    result = score()
    print(result.summary())
    assert result.correct >= 60 and result.false >= 30
    assert (result.precision, result.recall) == (1.0, 1.0), result.summary()
