"""Which sentences of a report state something, and so must cite a page.

Every declarative sentence of the body does, whether or not it names a number, date or name;
these do not: a question; a sentence that introduces what follows (it ends with a colon) or
points at the report or its sources ("This report looks at ...", "No source gives ...",
"Nothing could be read in time.", "See also ..."); a label written as a sentence ("Short
answer.", "Bottom line."); a sentence that sums up ("In short, ...", "Overall, ...") in words
the report's cited sentences already use (at least half of its words that carry meaning); a
short fragment without a full stop (a list item or caption of at most eight words); and
anything with no word that carries meaning. All of this is read from the words, not
understood: a summing-up sentence that restates cited words loosely passes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from outrider.server.research.facts import content_words
from outrider.server.research.names import ORDINARY, WORD, fold

FRAGMENT_WORDS = 8
_ENDING = "\"'\u201d\u2019)]*_ \t"  # what may follow a sentence's own punctuation
_POINTERS = re.compile(
    r"(?:this|the|our) (?:report|section|summary|overview|answer|analysis|table|list)\b"
    r"|(?:the|these|those|cited|available|our) (?:sources|pages|results|searches)\b"
    r"|(?:no|none of the|neither|few) (?:source|page|result|search)e?s?\b"
    r"|none of (?:them|these)\b|nothing\b|little (?:else |more )?(?:is|was) known\b"
    r"|(?:the )?(?:following|below|above)\b"
    r"|here (?:is|are)\b|see\b|for (?:more|details|further)\b"
    r"|it (?:is|was|remains) (?:unclear|not clear|unknown)\b"
)
_SUMMING_UP = re.compile(
    r"(?:in (?:short|summary|conclusion|sum|brief|all|general|other words)|overall|to sum up"
    r"|to (?:summari[sz]e|conclude)|taken together|altogether|all in all|together)\b[,:]?\s*"
)


def states_something(plain: str, restated: Callable[[set[str]], bool]) -> bool:
    """Whether a plain sentence (no markers, emphasis or lead-in) states something that needs
    a citation. `restated`: whether the report's cited sentences use enough of these words."""
    text = " ".join(plain.split()).rstrip(_ENDING)
    lower = text.lower()
    if text.endswith((":", "?")) or _POINTERS.match(lower):
        return False
    if not text.endswith((".", "!")) and len(text.split()) <= FRAGMENT_WORDS:
        return False
    if all(fold(word) in ORDINARY for word in WORD.findall(text)):
        return False  # "Short answer.", "Bottom line."
    words = content_words(text)
    if not words:
        return False
    summing_up = _SUMMING_UP.match(lower)
    if summing_up:
        return not restated(content_words(text[summing_up.end() :]))
    return True
