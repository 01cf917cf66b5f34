"""Statements the published report may keep, checked in code in every mode (judge or not).

A sentence of the body states a fact when it names something checkable: a number, a date or a
proper name (facts.py reads them). Such a sentence must cite fetched pages, and each of its
numbers, dates and names must occur, normalised, in the text (or title) of a page it cites;
otherwise the sentence is removed from the report and counted. Sentences that name nothing
checkable (they connect, introduce or sum up) stay, cited or not; so do headings, label lines
("**Causes:**"), code and table rules. Of a link only its text is read, never its URL.

The check is lexical, not semantic: it makes sure the numbers, dates and names a sentence
states are written in the pages it cites, not that those pages say what the sentence says.

Names: a capitalised word inside a sentence. A sentence's first word, and the words of its
lead-in ("**Bridge opening**: ...", "Key dates: ..."), are capitalised whatever they are: they
are names only when the report or a page uses them as names (capitalised inside a sentence, in
the report outside headings and lead-ins) and none writes them in lower case ("Varroa mites
..." is not a name, "Eiffel built ..." is when a page says "built by Eiffel"); single capital
letters ("U.S.") are not names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from outrider.server.research.facts import (
    Evidence,
    content_words,
    evidence,
    extract_facts,
    supported,
)
from outrider.server.research.sentences import MARKER, cited_ids, sentence_spans
from outrider.server.research.statements import states_something

_TIGHT = re.compile(r"\s+([.,;:!?])")  # "claim [S1]." without its marker: "claim."
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)]|>)\s+")
# A label ("**Causes:**", "Key takeaways:"): emphasised or ending in a colon, a few words, no
# digits and no citation.
_LABEL = re.compile(r"^\s*(?:\*\*[^*\d]+\*\*|\*[^*\d]+\*|__[^_\d]+__|[^.!?\[\]\d]+:)\s*:?\s*$")
_LABEL_WORDS = 8
# A sentence's lead-in: "**Bridge opening**:", "**Bridge opening:**", "__Note__ -", "Key dates:".
_LEAD_IN = re.compile(
    r"^\s*(?:(\*\*|__)(?P<emphasised>[^*_\n\d]{1,80}?)(?::\s*\1|\1\s*(?::|[-\u2013\u2014](?=\s)))"
    r"|(?P<plain>[^\W\d_][^\n:.!?\d\[\]*_]{0,80}?):(?=\s))"
)
_LEAD_IN_WORDS = 6
_LINK = re.compile(r"!?\[([^\]\n]*)\]\((?:[^()\n]|\([^()\n]*\))*\)|\[([^\]\n]+)\]\[[^\]\n]*\]")
_URL = re.compile(r"<(?:https?|ftp)://[^>\s]*>|\b(?:(?:https?|ftp)://|www\.)\S+", re.I)
_BLOCK_START = re.compile(r"\s*(?:[-*+]\s|\d+[.)]\s|#|\||>|```|~~~|[-*_=](?:\s*[-*_=]){2,}\s*$)")
_EMPHASIS = re.compile(r"(?<![^\W_])[*_]+|[*_]+(?![^\W_])")


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
        ids = [i for i in cited_ids(sentence) if i in self.texts]
        lead, rest = plain_sentence(sentence)
        facts = extract_facts(rest, self._is_name, lead)
        if not ids:
            return bool(facts) or (not row and states_something(rest, self._restated))
        return bool(facts) and not supported(facts, [self._of(i) for i in ids])

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
            cited = [s for s in _report_sentences(self.report) if cited_ids(s)]
            self._cited_words = content_words(" ".join(plain_sentence(s)[1] for s in cited))
        return 2 * len(words & self._cited_words) >= len(words)


def plain_sentence(sentence: str) -> tuple[str, str]:
    """A sentence's lead-in and the rest, as plain words: no citation markers, bullet, emphasis
    or link targets (a link is its text)."""
    text = _BULLET.sub("", MARKER.sub(" ", sentence), count=1)
    text = _URL.sub(" ", _LINK.sub(lambda m: m.group(1) or m.group(2) or "", text))
    lead = _LEAD_IN.match(text)
    words = lead and (lead.group("emphasised") or lead.group("plain"))
    if not lead or not words or len(words.split()) > _LEAD_IN_WORDS:
        return "", _EMPHASIS.sub(" ", text)
    return _EMPHASIS.sub(" ", words), _EMPHASIS.sub(" ", text[lead.end() :])


def _running_text(report: str) -> str:
    """The report's sentences as plain words, without headings and lead-ins: where the report's
    own capitals tell names."""
    return "\n".join(plain_sentence(sentence)[1] for sentence in _report_sentences(report))


def _report_sentences(report: str) -> list[str]:
    """The sentences of the report but its headings and code."""
    sentences = []
    for block, code in _blocks(report):
        if not code and not block.lstrip().startswith("#"):
            flat = block.rstrip("\n").replace("\n", " ")
            sentences += [flat[s:e] for s, e in sentence_spans(flat)]
    return sentences


def keep_supported(text: str, texts: Mapping[str, str]) -> tuple[str, list[str]]:
    """`text` without the sentences that state unsupported facts, and those sentences (their
    markers left out). `texts`: source id -> the text (and title) a citation of it rests on."""
    check = SupportCheck(texts, text)
    kept: list[str] = []
    removed: list[str] = []
    blocks = _blocks(text)
    for index, (block, verbatim) in enumerate(blocks):
        following = blocks[index + 1][0] if index + 1 < len(blocks) else ""
        if verbatim or _not_a_statement(block) or _is_rule(following):  # a table's header
            kept.append(block)
            continue
        rest = _without_unsupported(block, check, removed)
        if rest is not None:
            kept.append(rest)
    return "".join(kept), removed


def _blocks(text: str) -> list[tuple[str, bool]]:
    """The report's lines, those of one paragraph or list item joined (a sentence may go on
    over the next line), each with whether it is code (kept as it is)."""
    blocks: list[tuple[str, bool]] = []
    fenced = in_text = False
    for line in text.splitlines(keepends=True):
        fence = line.lstrip().startswith(("```", "~~~"))
        fenced ^= fence
        code = fence or fenced
        if in_text and line.strip() and not code and not _BLOCK_START.match(line):
            blocks[-1] = (blocks[-1][0] + line, False)
        else:
            blocks.append((line, code))
        in_text = bool(line.strip()) and not code and not line.lstrip().startswith(("#", "|"))
    return blocks


def _not_a_statement(line: str) -> bool:
    body = _BULLET.sub("", line, count=1).strip()
    if not body or line.lstrip().startswith(("#", "```", "~~~", "    ", "\t")):
        return True
    if _is_rule(line):
        return True
    label = _LABEL.match(body) is not None and len(body.split()) <= _LABEL_WORDS
    return label and MARKER.search(body) is None


def _is_rule(line: str) -> bool:
    """A table's rule (`| --- | --- |`) or a horizontal rule."""
    body = line.strip()
    return (bool(body) and set(body) <= set("|-: =*_") and "-" in body) or body == "***"


def _without_unsupported(block: str, check: SupportCheck, removed: list[str]) -> str | None:
    """The block without its unsupported sentences; None when none of it is left."""
    bullet = _BULLET.match(block)
    prefix = bullet.group(0) if bullet else ""
    body = block[len(prefix) :]
    flat = body.rstrip("\n").replace("\n", " ")  # the same offsets, on one line
    row = body.lstrip().startswith("|")
    spans = [(0, len(flat))] if row else sentence_spans(flat)
    dropped = [(s, e) for s, e in spans if check.unsupported(flat[s:e], row)]
    if not dropped:
        return block
    for start, end in dropped:
        bare = " ".join(MARKER.sub("", body[start:end]).split())
        removed.append(_TIGHT.sub(r"\1", bare))
    for start, end in reversed(dropped):
        body = body[:start] + body[end:]
    if not body.strip():
        return None
    ending = "\n" if block.endswith("\n") else ""
    return prefix + " ".join(body.split()) + ending
