"""Fencing web content in prompts: page text is data, never instructions, and must not be able
to end its fence early. Both agents put pages between markers built on one marker word; wherever
a page writes that word, in any form a reader could take for it, it becomes "external content"
(with a space), so no page text can pass for a marker of ours.

"Any form": any letter case; a Markdown escape (`external\\_content`, which the research
fetcher's Markdown conversion writes for a page's `external_content`); HTML character
references, decoded first (`external&#95;content`, `&#x65;xternal_content`, `&lowbar;`,
`external&#95content` without its semicolon as HTML5 reads it, `external&#8203;_content` with
an invisible character), named ones in any case, one in hex without its semicolon also as
ending at any digit (`external&#x5Fcontent`); invisible characters between the letters
(zero-width spaces and joiners, soft hyphens, direction marks, variation selectors, combining
marks); letters that only look alike (fullwidth, mathematical and other compatibility forms,
Cyrillic and Greek look-alikes); and for the underscore, any number of them
(`external__content`), any connector punctuation (Unicode category Pc: U+FF3F, U+FE4D, U+203F
...) and the characters drawn as a line on the baseline (U+2017, U+02CD, U+2581, U+23BD,
U+07FA, the combining low lines U+0332 and U+0333). Percent-encoding is not decoded (`%5F` is
how the report's URLs write the marker's underscore on purpose). The text is matched through a
folded copy, so everything else is kept exactly as the page wrote it.

The fence tags carry no per-run random value (a nonce), by choice. A nonce would stop page text
from writing a matching close tag only as far as the model honours it: a model is no parser, and
one told that only the tag with this run's value ends the fence may still take an unmatched tag,
or the defused "external content", for the end. So a nonce could add to defusing, never replace
it, and it has costs here: the browser's rules are the same bytes for every run so providers
cache them, so the nonce would have to come in a per-run message and be kept across a run's
resumption on another replica. What keeps page text from passing for a
tag is that it cannot write the marker word in any form a reader could take for it.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from html.entities import html5

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
# Characters drawn as a line on the baseline, read as the underscore (beside category Pc).
_LOW_LINES = "\u2017\u02cd\u2581\u23bd\u07fa\u0332\u0333"
# A character reference as HTML5 reads it: numeric ones with or without their semicolon.
_REFERENCE = re.compile(r"&(?:#[0-9]{1,8};?|#[xX][0-9a-fA-F]{1,8};?|[A-Za-z][A-Za-z0-9]{1,31};?)")
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
            category = unicodedata.category(char)
            if category == "Pc" or char in _LOW_LINES:
                table[point] = "_"
            elif category in ("Cf", "Mn", "Me"):
                table[point] = _IGNORED
            else:
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


def _marker_pattern() -> re.Pattern[str]:
    between = rf"[{_IGNORED}\\]*"  # invisible characters and Markdown escapes
    head, tail = MARKER_WORD.split("_")
    return re.compile(between.join(head) + rf"{between}(?:_{between})+" + between.join(tail))


_FOLD = _fold_table()
_MARKER = _marker_pattern()
_READABLE = frozenset(MARKER_WORD + _IGNORED)  # what a reference may read as to count
# Named references whose text reads as marker characters, by their names in lower case
# (`&LOWBAR;` reads as `&lowbar;` to a model, if not to a browser).
_NAMED = {
    name.lower(): text
    for name, text in html5.items()
    if name.endswith(";") and set(text.translate(_FOLD)) <= _READABLE
}


def marker_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` writes the marker word, in any form (start, end)."""
    folded = text.translate(_FOLD)  # as long as the text: one character for one
    references = []
    if "&" in text:
        read: dict[str, str | None] = {}  # a page repeats its references (&amp;, &nbsp;)
        for match in _REFERENCE.finditer(text):
            written = match.group(0)
            if written not in read:
                read[written] = _reference(written)
            decoded = read[written]
            if decoded is not None:
                references.append((match.span(), decoded))
    if not references:
        return [match.span() for match in _MARKER.finditer(folded)]
    spliced, pieces = _spliced(folded, references)
    return [_original(pieces, *match.span()) for match in _MARKER.finditer(spliced)]


# Where a folded copy's pieces start: (folded offset, original offset, original end for a
# character reference, or -1 for text folded one character for one).
Pieces = list[tuple[int, int, int]]


def _spliced(folded: str, references: list[tuple[tuple[int, int], str]]) -> tuple[str, Pieces]:
    """The folded text with the references that read as marker characters decoded, and where
    its pieces came from."""
    parts: list[str] = []
    pieces: Pieces = []
    length = last = 0
    for (start, end), decoded in references:
        if start > last:
            pieces.append((length, last, -1))
            parts.append(folded[last:start])
            length += start - last
        pieces.append((length, start, end))
        parts.append(decoded)
        length += len(decoded)
        last = end
    pieces.append((length, last, -1))
    parts.append(folded[last:])
    return "".join(parts), pieces


def _reference(written: str) -> str | None:
    """A character reference decoded as HTML5 reads it and folded, when it reads as characters
    of the marker or invisible ones (else it cannot take part in the marker: None). One in hex
    without its semicolon may also be read as ending at any digit ("&#x5Fcontent", &#x5FC for
    a browser, reads as "_content"): the longest such reading that fits counts."""
    if written[1] != "#":
        name = written[1:]
        found = html5.get(name) or _NAMED.get(name.lower())
        return _readable(found) if found else None
    hexadecimal = written[2] in "xX"
    digits = written[3 if hexadecimal else 2 :].rstrip(";")
    open_hex = hexadecimal and not written.endswith(";")
    for cut in range(len(digits), 0, -1) if open_hex else (len(digits),):
        point = int(digits[:cut], 16 if hexadecimal else 10)
        decoded = _readable(chr(point) + digits[cut:]) if point <= 0x10FFFF else None
        if decoded:
            return decoded
    return None


def _readable(decoded: str) -> str | None:
    folded = decoded.translate(_FOLD)
    return folded if set(folded) <= _READABLE else None


def _original(pieces: Pieces, start: int, end: int) -> tuple[int, int]:
    """The span of the original text that the folded span (start, end) was made from."""
    return _at(pieces, start, False), _at(pieces, end - 1, True)


def _at(pieces: Pieces, offset: int, after: bool) -> int:
    folded, original, reference_end = pieces[bisect_right(pieces, (offset, 1 << 62, 0)) - 1]
    if reference_end >= 0:
        return reference_end if after else original
    return original + offset - folded + (1 if after else 0)


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
