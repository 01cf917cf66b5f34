"""Numbers written in words, as their values: "seven", "forty-two", "twenty-first", "one hundred
and forty-three", "nineteen hundred", "twelve thousand", "two million" (facts.py compares them
with numbers written in digits)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_UNITS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
).split()
_ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_TENTHS = [word[:-1] + "ieth" for word in _TENS]
_SMALL = {word: n for n, word in enumerate(_UNITS, start=1)} | {
    word: n for n, word in enumerate(_ORDINALS, start=1)
}
_DECADES = {word: 10 * n for n, word in enumerate(_TENS, start=2)} | {
    word: 10 * n for n, word in enumerate(_TENTHS, start=2)
}
_HUNDRED = ("hundred", "hundredth")
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
_ENDS = frozenset(_ORDINALS + _TENTHS + ["hundredth"])  # an ordinal ends its number
# Spelled numbers a sentence often writes without stating a number ("one of", "First, ...",
# "a second bridge"): read in pages, not in the report's sentences.
LOOSE = frozenset({"one", "first", "second"})


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_WORD = _alternatives([*_SMALL, *_DECADES, *_HUNDRED, *_SCALES])
_RUN = re.compile(rf"\b(?:{_WORD})(?:(?:\s+and\s+|[-\s]+)(?:{_WORD}))*\b")
_SEPARATOR = re.compile(r"[-\s]+")


def spelled_numbers(text: str, loose: bool = True) -> list[str]:
    """The values of the numbers `text` spells out; without the `loose` words ("one", "first",
    "second") standing alone unless `loose`."""
    found = []
    for match in _RUN.finditer(text.lower()):
        tokens = [t for t in _SEPARATOR.split(match.group(0)) if t != "and"]
        for words in _numbers(tokens):
            if loose or len(words) > 1 or words[0] not in LOOSE:
                found.append(str(_value(words)))
    return found


def _numbers(tokens: list[str]) -> Iterator[list[str]]:
    """The tokens split into numbers: "two three" is two numbers, "twenty three" one."""
    words: list[str] = []
    for token in tokens:
        if words and not _continues(words, token):
            yield words
            words = []
        words.append(token)
    if words:
        yield words


def _continues(words: list[str], token: str) -> bool:
    last = words[-1]
    if last in _ENDS:
        return False
    if token in _SCALES:
        return True
    if token in _HUNDRED:
        return last in _SMALL or last in _DECADES
    if token in _SMALL:
        return last not in _SMALL  # after a decade, hundred or scale: "twenty-three"
    return last in _HUNDRED or last in _SCALES  # a decade: "one hundred and forty"


def _value(words: list[str]) -> int:
    total = current = 0
    for word in words:
        if word in _SCALES:
            total, current = total + (current or 1) * _SCALES[word], 0
        elif word in _HUNDRED:
            current = (current or 1) * 100
        else:
            current += _SMALL.get(word) or _DECADES[word]
    return total + current
