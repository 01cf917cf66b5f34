"""Which capitalised words of a sentence are names, by where they stand (facts.py checks names
against the pages a sentence cites).

A capitalised word inside a sentence is a name. A word that opens a sentence or a part of one is
capitalised whatever it is, so there it is a name only where the report or a page uses it as one
(`is_name`): at the start, after a full stop, colon, dash or a table's bar, after an opening
quote or bracket, and every word of a lead-in ("**Short answer.**", "Note:"). Ordinary words
that open sentences ("According", "Currently", "Today", "However", "Summary") are never names
there. A word with capitals or digits after its first letter (COVID-19, OpenAI, VTA) is a name
wherever it stands, unless it is such an ordinary word in capitals ("NOTE:").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

APOSTROPHES = "'\u2019"
WORD = re.compile(rf"[^\W\d_][\w{APOSTROPHES}-]*")  # a name may hold digits: F-35
_POSSESSIVE = re.compile(rf"[{APOSTROPHES}]s$")
FUNCTION_WORDS = frozenset(
    "a an and as at both but by each for from how however if in it its many most no not of "
    "on one or our overall so some such that the their then there these they this those thus "
    "to we what when where which while who why with yet you".split()
)
# Words that open sentences, lead-ins and labels and are not names there: adverbs,
# prepositions, conjunctions, pronouns and the words of labels.
ORDINARY = FUNCTION_WORDS | frozenset(
    """
    about above according accordingly across additionally after afterwards again against ago all
    almost along already also although altogether always among amid another answer any anyway
    apart approximately around background basically because before below besides between beyond
    bottom brief briefly broadly caution certainly clearly conclusion consequently context
    conversely crucially currently despite details do does during earlier either else
    elsewhere especially essentially even eventually every except fact facts few finally finding
    findings firstly following formerly further furthermore generally given hence he her here his
    historically i importantly important including indeed initially instead
    interestingly key lastly later likewise like line meanwhile more moreover mostly much my
    namely nearly neither nevertheless next nonetheless nor notably note now nowadays often
    once only originally other others otherwise over overview per perhaps presently previously
    recap recently regarding result results roughly secondly several she short similarly since
    so source sources specifically still summary takeaway takeaways thereafter therefore though
    through throughout tip tl dr tldr today together tomorrow tonight toward towards typically
    ultimately under unless unlike until update upon usually verdict versus via warning
    whereas whether within without yes yesterday your
    """.split()
)


def fold(word: str) -> str:
    """A word in lower case without accents."""
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def names_in(
    text: str, is_name: Callable[[str], bool], every_word_opens: bool = False
) -> list[str]:
    """The names of a plain sentence (or of a lead-in, whose words all open it): capitalised
    words inside it, and words that open it or a part of it where `is_name` (of the folded word,
    without a possessive's "'s") says so."""
    names = []
    for match in WORD.finditer(text):
        word = match.group(0).strip(APOSTROPHES + "-")
        folded = fold(_POSSESSIVE.sub("", word))
        if len(word) < 2 or word.islower() or folded in FUNCTION_WORDS:
            continue
        opening = every_word_opens or opens(text, match.start())
        if folded in ORDINARY and (opening or word.isupper()):
            continue  # "According, ...", "NOTE:"
        marked = any(c.isupper() or c.isdigit() for c in word[1:])
        if opening and not marked and not is_name(folded):
            continue  # capitalised as every first word is
        names.append(word)
    return names


_OPENERS = "([{\u201c\u2018\u00ab"  # always open a part
_QUOTES = "\"'"  # open a part where they follow a space or an opener
_CLOSERS = "\"')]}*_\u201d\u2019\u00bb"
_BREAKS = ".!?:|\u2014\u2013\u2026\u2022"


def opens(text: str, start: int) -> bool:
    """Whether the word at `start` opens the text or a part of it: nothing but a full stop,
    colon, dash, bar or an opening quote or bracket (and closing ones) stands before it."""
    before = text[:start].rstrip()
    if not before or before[-1] in _OPENERS:
        return True
    if before[-1] in _QUOTES and (len(before) == 1 or not before[-2].isalnum()):
        return True
    before = before.rstrip(_CLOSERS + " \t")
    if not before:
        return True
    last = before[-1]
    return last in _BREAKS or (last == "-" and (len(before) == 1 or before[-2].isspace()))
