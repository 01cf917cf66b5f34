"""Sentences of a report and its id citations: where a sentence ends and which ids it cites."""

from __future__ import annotations

import re

MARKER = re.compile(r"\[\s*(S\d+(?:\s*,\s*S\d+)*)\s*\]")
# A sentence ends at . ! or ?, with the markers after it and the stop a writer may repeat
# after them ("at night? [S2].").
SENTENCE = re.compile(r".*?(?:[.!?]+(?:\s*" + MARKER.pattern + r")*[.!?]*(?=\s|$)|$)")


def sentence_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of one line, leading spaces left out."""
    spans = []
    for match in SENTENCE.finditer(line):
        chunk = match.group(0)
        if chunk.strip():
            lead = len(chunk) - len(chunk.lstrip())
            spans.append((match.start() + lead, match.end()))
    return spans


def cited_ids(sentence: str) -> list[str]:
    """The ids a sentence cites, in order, each once."""
    ids = [i.strip() for m in MARKER.finditer(sentence) for i in m.group(1).split(",")]
    return list(dict.fromkeys(ids))
