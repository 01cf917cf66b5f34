"""Fencing web content in prompts: page text is data, never instructions, and must not be able
to end its fence early. Both agents put pages between markers built on one marker word; a page
that writes the word (in any case) gets it with a space instead of the underscore."""

from __future__ import annotations

import re

MARKER_WORD = "external_content"
_MARKER = re.compile(re.escape(MARKER_WORD), re.IGNORECASE)


def defuse(text: str) -> str:
    """`text` with every occurrence of the marker word made harmless ("external content")."""
    return _MARKER.sub(lambda m: m[0].replace("_", " "), text)


def defused_line(text: str) -> str:
    """`text` defused and on one line (each run of whitespace, newlines included, one space):
    for page-chosen text written beside a fence (a URL, a title), not inside it."""
    return " ".join(defuse(text).split())
