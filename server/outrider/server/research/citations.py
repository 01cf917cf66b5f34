"""Citations checked in code.

The writer cites sources by id, `[S3]` or `[S1, S4]`. Ids the run did not fetch are removed and
counted, never published, and so are statements no cited page supports (editing.py); every URL
in the text (links, images, reference definitions, autolinks, bare URLs) becomes an id citation
when it is a fetched page, and is removed and counted otherwise (see links.py). What remains
maps, like a grounding support, each cited sentence (a segment of the report, in UTF-8 byte
offsets) to the indices of the cited pages that support it; cited pages are ordered by first
citation and keep their claims.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from outrider.server.research.editing import keep_supported
from outrider.server.research.links import rewrite_urls
from outrider.server.research.sentences import MARKER, cited_ids, sentence_spans

_GAPS = (
    (re.compile(r"[ \t]+([.,;:!?)])"), r"\1"),  # a dropped marker or URL leaves no gap before
    (re.compile(r"([!?])\.(?=\s|$)"), r"\1"),  # "night? [S9]." without its marker
    (re.compile(r"[ \t]*\(\s*\)"), ""),  # "(see URL)" without its URL
    (re.compile(r"(?<=\S)[ \t]{2,}(?=\S)"), " "),
)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#+)\s+")


@dataclass(frozen=True)
class Segment:
    start: int  # UTF-8 byte offset in the report, inclusive
    end: int  # exclusive
    text: str


@dataclass(frozen=True)
class Support:
    segment: Segment
    source_indices: tuple[int, ...]  # into CheckedReport.cited


@dataclass(frozen=True)
class CheckedReport:
    text: str
    cited: tuple[str, ...]  # source ids in order of first citation
    claims: dict[str, list[str]]  # source id -> the sentences citing it, markers removed
    supports: tuple[Support, ...]
    removed: tuple[str, ...] = field(default=())  # ids and URLs cited but never fetched
    unsupported: tuple[str, ...] = field(default=())  # statements removed: no source states them


def check_citations(
    draft: str,
    sources: Mapping[str, str],
    urls: Mapping[str, str],
    texts: Mapping[str, str] | None = None,
) -> CheckedReport:
    """`sources`: fetched source id -> URL; `urls`: every URL of a fetched page -> its id;
    `texts`: source id -> its text and title, to check each statement against the pages it
    cites (support.py; not checked without them)."""
    removed: list[str] = []
    text = rewrite_urls(draft, urls, removed)
    text = MARKER.sub(lambda m: _keep_known(m, sources, removed), text)
    unsupported: list[str] = []
    if texts is not None:
        text, unsupported = keep_supported(text, texts)
    return _ground(_close_gaps(text), tuple(removed), tuple(unsupported))


def _close_gaps(text: str) -> str:
    for pattern, replacement in _GAPS:
        text = pattern.sub(replacement, text)
    return text


def _keep_known(match: re.Match[str], sources: Mapping[str, str], removed: list[str]) -> str:
    ids = [part.strip() for part in match.group(1).split(",")]
    kept = [i for i in ids if i in sources]
    removed.extend(i for i in ids if i not in sources)
    return f"[{', '.join(dict.fromkeys(kept))}]" if kept else ""


def _ground(text: str, removed: tuple[str, ...], unsupported: tuple[str, ...]) -> CheckedReport:
    cited: dict[str, int] = {}
    claims: dict[str, list[str]] = {}
    supports: list[Support] = []
    for start, end in _sentence_spans(text):
        sentence = text[start:end]
        ids = cited_ids(sentence)
        if not ids:
            continue
        claim = _claim(sentence)
        for source in dict.fromkeys(ids):
            cited.setdefault(source, len(cited))
            claims.setdefault(source, []).append(claim)
        segment = Segment(_bytes(text, start), _bytes(text, end), sentence.strip())
        supports.append(Support(segment, tuple(cited[i] for i in dict.fromkeys(ids))))
    return CheckedReport(text, tuple(cited), claims, tuple(supports), removed, unsupported)


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    offset = 0
    for line in text.splitlines(keepends=True):
        spans += [(offset + start, offset + end) for start, end in sentence_spans(line)]
        offset += len(line)
    return spans


def _claim(sentence: str) -> str:
    bare = _close_gaps(MARKER.sub("", sentence))
    return " ".join(_BULLET.sub("", bare.strip()).split())


def _bytes(text: str, index: int) -> int:
    return len(text[:index].encode())
