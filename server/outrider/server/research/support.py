"""Whether a sentence of a report is supported by the pages it cites, checked in code in every
mode (judge or not); editing.py removes what is not.

A sentence of the body states a fact when it names something checkable: a number, a date or a
proper name (facts.py reads them). Such a sentence must cite fetched pages, and each of its
numbers, dates and names must occur, normalised, in the text (or title) of a page it cites.
Sentences that name nothing checkable must cite a page too unless they connect, introduce or sum
up (statements.py); headings, labels ("**Causes:**"), code and table rules are no statements.
Of a link only its text is read, never its URL.

The check is lexical, not semantic: it makes sure the numbers, dates and names a sentence
states are written in the pages it cites, not that those pages say what the sentence says.

Names (names.py): a capitalised word inside a sentence. Words that open a sentence or a part of
it, and the words of its lead-ins ("**Short answer.**", "**Bridge opening**:", "Note:") and of a
table's label cells, are capitalised whatever they are: they are names only when the report or
a page uses them as names (capitalised inside a sentence, in the report outside headings and
lead-ins, in a page outside its headings and titles) and none writes them in lower case
("Varroa mites ..." is not a name, "Eiffel built ..." is when a page says "built by Eiffel").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from outrider.server.research.blocks import BULLET, blocks
from outrider.server.research.facts import (
    Evidence,
    content_words,
    evidence,
    extract_facts,
    supported,
)
from outrider.server.research.sentences import MARKER, cited_ids, sentence_spans
from outrider.server.research.statements import states_something

# A sentence's lead-in: "**Short answer.**", "**Bridge opening**:", "**Answer:**", "_In brief._",
# "**Answer** —", "Key dates:"; several may follow one another ("**Answer.** Summary: ...").
_LEAD_IN = re.compile(
    r"\s*(?:(?P<mark>\*\*|__|\*|_)(?P<emphasised>[^*_\n\d]{1,80}?)\s*"
    r"(?P<inner>[:.!\u2014\u2013-])?\s*(?P=mark)\s*(?P<outer>[:.!\u2014\u2013]|-(?=\s))?"
    r"|(?P<plain>[^\W\d_][^\n:.!?\d\[\]*_]{0,80}?):)(?=\s|$)"
)
_LEAD_IN_WORDS = 6
_LEAD_INS = 3
_LINK = re.compile(r"!?\[([^\]\n]*)\]\((?:[^()\n]|\([^()\n]*\))*\)|\[([^\]\n]+)\]\[[^\]\n]*\]")
_URL = re.compile(r"<(?:https?|ftp)://[^>\s]*>|\b(?:(?:https?|ftp)://|www\.)\S+", re.I)
_EMPHASIS = re.compile(r"(?<![^\W_])[*_]+|[*_]+(?![^\W_])")
_CELL_WORDS = 6


@dataclass
class SupportCheck:
    """Checks the sentences of one report against the texts of the pages it may cite."""

    texts: Mapping[str, str]  # source id -> its text and title
    report: str

    def __post_init__(self) -> None:
        self._evidence: dict[str, Evidence] = {}
        self._lower: frozenset[str] | None = None
        self._names: frozenset[str] = frozenset()
        self._cited_words: set[str] | None = None

    def unsupported(self, sentence: str, row: bool = False) -> bool:
        """Whether `sentence` (a table's `row`) cites no page and states something, or states a
        number, date or name no page it cites holds. A row needs a citation only for those."""
        ids = self.cited(sentence)
        lead, rest = sentence_parts(sentence, row)
        facts = extract_facts(rest, self._is_name, lead)
        if not ids:
            return bool(facts) or (not row and states_something(rest, self._restated))
        return bool(facts) and not supported(facts, [self._of(i) for i in ids])

    def cited(self, sentence: str) -> list[str]:
        """The ids `sentence` cites of pages the check knows."""
        return [i for i in cited_ids(sentence) if i in self.texts]

    def _of(self, source_id: str) -> Evidence:
        if source_id not in self._evidence:
            self._evidence[source_id] = evidence(self.texts[source_id])
        return self._evidence[source_id]

    def _is_name(self, word: str) -> bool:
        """Whether the report or a page uses `word` as a name and none writes it in lower case."""
        if self._lower is None:
            every = [evidence(_running_text(self.report)), *(self._of(i) for i in self.texts)]
            self._lower = frozenset().union(*(e.lower_words for e in every))
            self._names = frozenset().union(*(e.names for e in every))
        return word in self._names and word not in self._lower

    def _restated(self, words: set[str]) -> bool:
        """Whether the report's cited sentences use at least half of `words`."""
        if self._cited_words is None:
            cited = [s for s, row in _report_sentences(self.report) if cited_ids(s)]
            self._cited_words = content_words(" ".join(plain_sentence(s)[1] for s in cited))
        return 2 * len(words & self._cited_words) >= len(words)


def sentence_parts(sentence: str, row: bool = False) -> tuple[str, str]:
    """A sentence's (or a table row's) lead-in words and the rest, as plain words. A row's
    label cells (a few words, no digits, no citation) count as its lead-in."""
    if not row:
        return plain_sentence(sentence)
    leads, rests = [], []
    for cell in sentence.strip().strip("|").split("|"):
        lead, rest = plain_sentence(cell)
        if rest.strip() and not lead and _is_label_cell(cell, rest):
            lead, rest = rest, ""
        leads.append(lead)
        rests.append(rest)
    return " ".join(leads), " | ".join(rests)


def _is_label_cell(cell: str, plain: str) -> bool:
    return (
        MARKER.search(cell) is None
        and not any(c.isdigit() for c in cell)
        and len(plain.split()) <= _CELL_WORDS
    )


def plain_sentence(sentence: str) -> tuple[str, str]:
    """A sentence's lead-in words and the rest, as plain words: no citation markers, bullet,
    emphasis or link targets (a link is its text)."""
    text = BULLET.sub("", MARKER.sub(" ", sentence), count=1)
    text = _URL.sub(" ", _LINK.sub(lambda m: m.group(1) or m.group(2) or "", text))
    end, words = _lead_ins(text)
    return _EMPHASIS.sub(" ", " ".join(words)), _EMPHASIS.sub(" ", text[end:])


def lead_in_end(sentence: str) -> int:
    """Where the lead-ins of a sentence (its bullet taken off) end: 0 without one."""
    return _lead_ins(sentence)[0]


def _lead_ins(text: str) -> tuple[int, list[str]]:
    """The end of the lead-ins that open `text`, and their words."""
    end, words = 0, []
    for _ in range(_LEAD_INS):
        lead = _LEAD_IN.match(text, end)
        if lead is None:
            break
        emphasised = lead.group("emphasised")
        if emphasised is not None and not (lead.group("inner") or lead.group("outer")):
            break  # "**Vellmora** runs ...": a bold subject, not a lead-in
        said = emphasised or lead.group("plain")
        if not said.strip() or len(said.split()) > _LEAD_IN_WORDS:
            break
        end = lead.end()
        words.append(said)
    return end, words


def _running_text(report: str) -> str:
    """The report's sentences as plain words, without headings, lead-ins and label cells: where
    the report's own capitals tell names."""
    return "\n".join(sentence_parts(s, row)[1] for s, row in _report_sentences(report))


def _report_sentences(report: str) -> list[tuple[str, bool]]:
    """The sentences of the report but its headings and code, each with whether it is a row."""
    sentences = []
    for block, code in blocks(report):
        if code or block.lstrip().startswith("#"):
            continue
        flat = block.rstrip("\n").replace("\n", " ")
        if flat.lstrip().startswith("|"):
            sentences.append((flat, True))
        else:
            sentences += [(flat[s:e], False) for s, e in sentence_spans(flat)]
    return sentences
