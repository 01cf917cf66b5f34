"""Citations checked in code.

The writer cites sources by id, `[S3]` or `[S1, S4]`. Ids the run did not fetch are removed and
counted, never published; Markdown links to fetched pages become id citations, links to pages the
run did not fetch lose their URL (and are counted). What remains maps, like a grounding support,
each cited sentence (a segment of the report, in UTF-8 byte offsets) to the indices of the cited
pages that support it; cited pages are ordered by first citation and keep their claims.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

MARKER = re.compile(r"\[\s*(S\d+(?:\s*,\s*S\d+)*)\s*\]")
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")
_SENTENCE = re.compile(r".*?(?:[.!?]+(?:\s*" + MARKER.pattern + r")*(?=\s|$)|$)")
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


def check_citations(
    draft: str, sources: Mapping[str, str], urls: Mapping[str, str]
) -> CheckedReport:
    """`sources`: fetched source id -> URL; `urls`: every URL of a fetched page -> its id."""
    removed: list[str] = []
    text = _LINK.sub(lambda m: _relink(m, urls, removed), draft)
    text = MARKER.sub(lambda m: _keep_known(m, sources, removed), text)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)  # a dropped marker leaves no gap before
    return _ground(text, tuple(removed))


def _relink(match: re.Match[str], urls: Mapping[str, str], removed: list[str]) -> str:
    label, url = match.group(1), match.group(2)
    source = urls.get(url)
    if source is None:
        removed.append(url)
        return label
    return f"{label} [{source}]"


def _keep_known(match: re.Match[str], sources: Mapping[str, str], removed: list[str]) -> str:
    ids = [part.strip() for part in match.group(1).split(",")]
    kept = [i for i in ids if i in sources]
    removed.extend(i for i in ids if i not in sources)
    return f"[{', '.join(dict.fromkeys(kept))}]" if kept else ""


def _ground(text: str, removed: tuple[str, ...]) -> CheckedReport:
    cited: dict[str, int] = {}
    claims: dict[str, list[str]] = {}
    supports: list[Support] = []
    for start, end in _sentence_spans(text):
        sentence = text[start:end]
        ids = [i.strip() for m in MARKER.finditer(sentence) for i in m.group(1).split(",")]
        if not ids:
            continue
        claim = _claim(sentence)
        for source in dict.fromkeys(ids):
            cited.setdefault(source, len(cited))
            claims.setdefault(source, []).append(claim)
        segment = Segment(_bytes(text, start), _bytes(text, end), sentence.strip())
        supports.append(Support(segment, tuple(cited[i] for i in dict.fromkeys(ids))))
    return CheckedReport(text, tuple(cited), claims, tuple(supports), removed)


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    offset = 0
    for line in text.splitlines(keepends=True):
        for match in _SENTENCE.finditer(line):
            chunk = match.group(0)
            if chunk.strip():
                lead = len(chunk) - len(chunk.lstrip())
                spans.append((offset + match.start() + lead, offset + match.end()))
        offset += len(line)
    return spans


def _claim(sentence: str) -> str:
    bare = MARKER.sub("", sentence)
    bare = re.sub(r"[ \t]+([.,;:!?])", r"\1", bare)
    return " ".join(_BULLET.sub("", bare.strip()).split())


def _bytes(text: str, index: int) -> int:
    return len(text[:index].encode())
