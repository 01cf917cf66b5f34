"""A report's blocks, as the statement check reads them: paragraphs and list items (a sentence
may go on over the next line), code (kept as it is), and what states nothing: headings, labels
("**Causes:**", "Answer:"), table rules."""

from __future__ import annotations

import re

from outrider.server.research.sentences import MARKER

BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)]|>)\s+")
# A label: emphasised or ending in a colon, a few words, no digits and no citation.
_LABEL = re.compile(
    r"^\s*(?:\*\*[^*\d]+\*\*|\*[^*\d]+\*|__[^_\d]+__|[^.!?\[\]\d]+:)\s*[:.\u2014\u2013-]?\s*$"
)
_LABEL_WORDS = 8
_BLOCK_START = re.compile(
    r"\s*(?:[-*+\u2022]\s|\d+[.)]\s|#|\||>|```|~~~|[-*_=](?:\s*[-*_=]){2,}\s*$)"
)


def blocks(text: str) -> list[tuple[str, bool]]:
    """The report's lines, those of one paragraph or list item joined, each with whether it is
    code. A label's line stands alone: "**Answer**" above a sentence is not part of it."""
    found: list[tuple[str, bool]] = []
    fenced = in_text = False
    for line in text.splitlines(keepends=True):
        fence = line.lstrip().startswith(("```", "~~~"))
        fenced ^= fence
        code = fence or fenced
        if in_text and line.strip() and not code and not _BLOCK_START.match(line):
            found[-1] = (found[-1][0] + line, False)
        else:
            found.append((line, code))
        in_text = (
            bool(line.strip())
            and not code
            and not line.lstrip().startswith(("#", "|"))
            and not is_label(BULLET.sub("", line, count=1))
        )
    return found


def not_a_statement(line: str) -> bool:
    """A heading, code, a rule or a label (of a list item too)."""
    body = BULLET.sub("", line, count=1).strip()
    if not body or line.lstrip().startswith(("#", "```", "~~~", "    ", "\t")):
        return True
    return is_rule(line) or is_label(body)


def is_label(body: str) -> bool:
    body = body.strip()
    return (
        _LABEL.match(body) is not None
        and len(body.split()) <= _LABEL_WORDS
        and MARKER.search(body) is None
    )


def is_rule(line: str) -> bool:
    """A table's rule (`| --- | --- |`) or a horizontal rule."""
    body = line.strip()
    return (bool(body) and set(body) <= set("|-: =*_") and "-" in body) or body == "***"
