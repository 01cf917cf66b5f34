"""Fencing web content in prompts: page text is data, never instructions, and must not be able
to end its fence early. Both agents put pages between markers built on one marker word; wherever
a page writes that word, in any form a reader could take for it, it becomes "external content"
(with a space), so no page text can pass for a marker of ours.

"Any form": any letter case; a Markdown escape (`external\\_content`, which the research
fetcher's Markdown conversion writes for a page's `external_content`); HTML character
references (`external&#95;content`, `&#x65;xternal_content`, `&lowbar;`); invisible characters
between the letters (zero-width spaces and joiners, soft hyphens, direction marks, variation
selectors, combining marks); and letters that only look alike (fullwidth, mathematical and other
compatibility forms, Cyrillic and Greek look-alikes). The text is matched through a same-length
folded copy, so everything else is kept exactly as the page wrote it."""

from __future__ import annotations

import re
import unicodedata

MARKER_WORD = "external_content"
INLINE_CHARS = 200  # a page-chosen value written beside a fence (a title, a URL, a link text)

_IGNORED = "\x00"  # what an invisible character folds to
# Letters of other scripts that look like the marker's letters (NFKC keeps them apart).
_LOOK_ALIKES = {  # Cyrillic, Greek and Armenian letters, by code point
    "a": "\u0430\u03b1",
    "c": "\u0441\u03f2\u03c2",
    "e": "\u0435\u0454\u03b5",
    "l": "\u04cf\u03b9|",
    "n": "\u0578",
    "o": "\u043e\u03bf\u0585",
    "r": "\u0433",
    "t": "\u0442\u03c4",
    "x": "\u0445\u03c7",
}
# Where compatibility forms and invisible characters are: the BMP but for its ideographs, Hangul
# syllables, surrogates and private use (none reads as a Latin letter), and four blocks beyond.
_BLOCKS = (
    (0x80, 0x3400),
    (0xA000, 0xAC00),
    (0xF900, 0x10000),
    (0x1D400, 0x1D800),
    (0x1F100, 0x1F200),
    (0xE0000, 0xE0080),
    (0xE0100, 0xE01F0),
)


def _fold_table() -> dict[int, str]:
    """Code point -> the marker character it reads as, or _IGNORED for an invisible one."""
    wanted = set(MARKER_WORD)
    table: dict[int, str] = {}
    for start, end in _BLOCKS:
        for point in range(start, end):
            char = chr(point)
            if unicodedata.category(char) in ("Cf", "Mn", "Me"):
                table[point] = _IGNORED
                continue
            folded = _base_letters(char)
            if len(folded) == 1 and folded in wanted:
                table[point] = folded
    for letter, others in _LOOK_ALIKES.items():
        for other in others:
            table.setdefault(ord(other), letter)
            table.setdefault(ord(other.upper()), letter)
    table.update({ord(c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"})
    return table


def _base_letters(char: str) -> str:
    """What `char` reads as: its compatibility form without accents, in lower case."""
    decomposed = unicodedata.normalize("NFKD", char)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _letter(char: str) -> str:
    """A marker character in the folded text: itself or an HTML character reference to it."""
    point = ord(char)
    forms = [re.escape(char), f"&#0*{point};", f"&#x0*{point:x};"]
    if char == "_":
        forms += ["&lowbar;", "&underbar;"]
    return "(?:" + "|".join(forms) + ")"


def _marker_pattern() -> re.Pattern[str]:
    between = rf"[{_IGNORED}\\]*"  # invisible characters and Markdown escapes
    return re.compile(between.join(_letter(c) for c in MARKER_WORD))


_FOLD = _fold_table()
_MARKER = _marker_pattern()


def marker_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` writes the marker word, in any form (start, end)."""
    return [match.span() for match in _MARKER.finditer(text.translate(_FOLD))]


def defuse(text: str) -> str:
    """`text` with every form of the marker word made harmless ("external content")."""
    spans = marker_spans(text)
    if not spans:
        return text
    parts, last = [], 0
    for start, end in spans:
        parts += [text[last:start], _harmless(text[start:end])]
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _harmless(written: str) -> str:
    if written.lower() == MARKER_WORD:
        return written.replace("_", " ")  # the plain word keeps its case
    return "EXTERNAL CONTENT" if written.isupper() else "external content"


def defused_line(text: str) -> str:
    """`text` defused and on one line (each run of whitespace, newlines included, one space):
    for page-chosen text written beside a fence (a URL, a title), not inside it."""
    return " ".join(defuse(text).split())


def inline(text: str, limit: int = INLINE_CHARS) -> str:
    """Page-chosen text written outside a fence or in its head: one defused line of at most
    `limit` characters (cut with an ellipsis)."""
    flat = defused_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
