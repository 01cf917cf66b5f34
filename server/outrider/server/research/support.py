"""Statements the published report may keep, checked in code in every mode (judge or not).

A sentence of the body states a fact when it names something checkable: a number, a date or a
proper name. Such a sentence must cite fetched pages, and each of its numbers, dates and names
must occur, normalised, in the text (or title) of a page it cites; otherwise the sentence is
removed from the report and counted. Sentences that name nothing checkable (they connect,
introduce or sum up) stay, cited or not; so do headings, label lines ("**Causes:**"), code and
table rules.

Normalised: words in lower case without accents (a possessive's "'s" and a plural's "s" may
differ); numbers without thousands separators or trailing zeros (1,200 = 1200, 3.50 = 3.5,
"2 million" = 2000000); dates as year-month(-day) whatever their spelling (2023-05-01,
1 May 2023, May 1, 2023). A capitalised first word of a sentence is a name only when the report
or a page uses it as one (capitalised inside a sentence) and none writes it in lower case
("Varroa mites ..." is not a name, "Eiffel built ..." is when a page says "built by Eiffel");
single capital letters ("U.S.") are not names.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from outrider.server.research.sentences import MARKER, cited_ids, sentence_spans

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH = (  # every name of _MONTHS, as few alternatives as they allow
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DATES: tuple[tuple[re.Pattern[str], tuple[int, int, int | None]], ...] = (
    # pattern, and the groups holding year, month, day
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), (1, 2, 3)),
    (re.compile(rf"\b{_DAY}\s+{_MONTH},?\s+(\d{{4}})\b", re.I), (3, 2, 1)),
    (re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+(\d{{4}})\b", re.I), (3, 1, 2)),
    (re.compile(rf"\b{_MONTH},?\s+(\d{{4}})\b", re.I), (2, 1, None)),
)
_NUMBER = re.compile(r"\d+(?:[.,\u00a0\u202f\u2009]\d+)*(?:\s+(thousand|million|billion))?", re.I)
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
_THOUSANDS = re.compile(r"\d{1,3}(?:[,\u00a0\u202f\u2009]\d{3})+(?:\.\d+)?")
_APOSTROPHES = "'\u2019"
_WORD = re.compile(rf"[^\W\d_][\w{_APOSTROPHES}-]*")
_PLAIN_WORD = re.compile(r"[^\W\d_]+")
_INSIDE = re.compile(r"(?<=[\w,;] )([^\W\d_]+)")  # a word after a word: inside a sentence
_TIGHT = re.compile(r"\s+([.,;:!?])")  # "claim [S1]." without its marker: "claim."
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)]|>)\s+")
# A label ("**Causes:**", "Key takeaways:"): emphasised or ending in a colon, a few words, no
# digits and no citation.
_LABEL = re.compile(r"^\s*(?:\*\*[^*\d]+\*\*|\*[^*\d]+\*|__[^_\d]+__|[^.!?\[\]\d]+:)\s*:?\s*$")
_LABEL_WORDS = 8
_UNITS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
).split()
_ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_NUMBER_WORDS = (
    {word: n for n, word in enumerate(_UNITS, start=1)}
    | {word: n for n, word in enumerate(_ORDINALS, start=1)}
    | {word: 10 * n for n, word in enumerate(_TENS, start=2)}
    | {word[:-1] + "ieth": 10 * n for n, word in enumerate(_TENS, start=2)}
)
_SPELLED = re.compile(
    r"\b("
    + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
    + r")(?:-("
    + "|".join(_UNITS[:9] + _ORDINALS[:9])
    + r"))?\b"
)
_FUNCTION_WORDS = frozenset(
    "a an and as at both but by each for from how however if in it its many most no not of "
    "on one or our overall so some such that the their then there these they this those thus "
    "to we what when where which while who why with yet you".split()
)


@dataclass(frozen=True)
class Evidence:
    """What a text holds, normalised: its words, the words it writes in lower case and those it
    capitalises inside a sentence (names), its numbers and its dates."""

    words: frozenset[str]
    lower_words: frozenset[str]
    names: frozenset[str]
    numbers: frozenset[str]
    dates: frozenset[str]


@dataclass(frozen=True)
class Facts:
    """What a sentence states that can be checked."""

    numbers: tuple[tuple[str, ...], ...]  # each number's acceptable forms
    dates: tuple[str, ...]
    names: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.numbers or self.dates or self.names)


def evidence(text: str) -> Evidence:
    dates = _dates_in(text, blank=False)[0]
    numbers = {form for match in _NUMBER.finditer(text) for form in _number_forms(match)}
    numbers |= _spelled_numbers(text)
    words = set(_PLAIN_WORD.findall(text))
    inside = {m.group(1) for m in _INSIDE.finditer(text) if m.group(1)[0].isupper()}
    return Evidence(
        frozenset(_fold(w) for w in words),
        frozenset(_fold(w) for w in words if w.islower()),
        frozenset(_fold(w) for w in inside),
        frozenset(numbers),
        frozenset(dates | {date[:7] for date in dates}),
    )


@dataclass
class SupportCheck:
    """Checks the sentences of one report against the texts of the pages it may cite."""

    texts: Mapping[str, str]  # source id -> its text and title
    report: str

    def __post_init__(self) -> None:
        self._evidence: dict[str, Evidence] = {}
        self._all: Evidence | None = None

    def unsupported(self, sentence: str) -> bool:
        ids = [i for i in cited_ids(sentence) if i in self.texts]
        facts = extract_facts(MARKER.sub(" ", sentence), self._is_name)
        if not facts:
            return False
        return not ids or not _supported(facts, [self._of(i) for i in ids])

    def _of(self, source_id: str) -> Evidence:
        if source_id not in self._evidence:
            self._evidence[source_id] = evidence(self.texts[source_id])
        return self._evidence[source_id]

    def _is_name(self, word: str) -> bool:
        """Whether the report or a page uses `word` as a name and none writes it in lower case."""
        if self._all is None:
            every = [evidence(self.report), *(self._of(i) for i in self.texts)]
            lower = frozenset().union(*(e.lower_words for e in every))
            names = frozenset().union(*(e.names for e in every))
            self._all = Evidence(frozenset(), lower, names, frozenset(), frozenset())
        return word in self._all.names and word not in self._all.lower_words


def keep_supported(text: str, texts: Mapping[str, str]) -> tuple[str, list[str]]:
    """`text` without the sentences that state unsupported facts, and those sentences (their
    markers left out). `texts`: source id -> the text (and title) a citation of it rests on."""
    check = SupportCheck(texts, text)
    kept: list[str] = []
    removed: list[str] = []
    fenced = False
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if fenced or _not_a_statement(line) or _is_rule(following):  # a table's header
            kept.append(line)
            continue
        rest = _without_unsupported(line, check, removed)
        if rest is not None:
            kept.append(rest)
    return "".join(kept), removed


def _not_a_statement(line: str) -> bool:
    body = _BULLET.sub("", line, count=1).strip()
    if not body or line.lstrip().startswith(("#", "```", "~~~", "    ", "\t")):
        return True
    if _is_rule(line):
        return True
    label = _LABEL.match(body) is not None and len(body.split()) <= _LABEL_WORDS
    return label and MARKER.search(body) is None


def _is_rule(line: str) -> bool:
    """A table's rule (`| --- | --- |`) or a horizontal rule."""
    body = line.strip()
    return (bool(body) and set(body) <= set("|-: =*_") and "-" in body) or body == "***"


def _without_unsupported(line: str, check: SupportCheck, removed: list[str]) -> str | None:
    """The line without its unsupported sentences; None when none of it is left."""
    bullet = _BULLET.match(line)
    prefix = bullet.group(0) if bullet else ""
    body = line[len(prefix) :]
    units = [(0, len(body.rstrip("\n")))] if body.lstrip().startswith("|") else None
    spans = units or sentence_spans(body.rstrip("\n"))
    dropped = [(s, e) for s, e in spans if check.unsupported(body[s:e])]
    if not dropped:
        return line
    for start, end in reversed(dropped):
        bare = " ".join(MARKER.sub("", body[start:end]).split())
        removed.append(_TIGHT.sub(r"\1", bare))
        body = body[:start] + body[end:]
    if not body.strip():
        return None
    ending = "\n" if line.endswith("\n") else ""
    return prefix + " ".join(body.split()) + ending


def extract_facts(sentence: str, is_name: Callable[[str], bool]) -> Facts:
    """`is_name`: whether a capitalised first word (folded) is a name."""
    dates, rest = _dates_in(sentence)
    numbers = tuple(tuple(_number_forms(match)) for match in _NUMBER.finditer(rest))
    return Facts(numbers, tuple(sorted(dates)), tuple(_names(rest, is_name)))


def _names(text: str, is_name: Callable[[str], bool]) -> list[str]:
    names = []
    for index, match in enumerate(_WORD.finditer(_plain(text))):
        word = match.group(0).strip(_APOSTROPHES + "-")
        if len(word) < 2 or word.islower() or word.lower() in _FUNCTION_WORDS:
            continue
        inner_capitals = any(c.isupper() for c in word[1:])
        if index == 0 and not inner_capitals and not is_name(_fold(word)):
            continue  # a sentence's first word, capitalised as every first word is
        names.append(word)
    return names


def _plain(text: str) -> str:
    """The sentence's words without Markdown emphasis or a bullet in front."""
    return _BULLET.sub("", text.replace("**", " ").replace("__", " "), count=1)


def _supported(facts: Facts, cited: list[Evidence]) -> bool:
    words = frozenset().union(*(e.words for e in cited))
    numbers = frozenset().union(*(e.numbers for e in cited))
    dates = frozenset().union(*(e.dates for e in cited))
    return (
        all(any(form in numbers for form in forms) for forms in facts.numbers)
        and all(date in dates for date in facts.dates)
        and all(_name_in(name, words) for name in facts.names)
    )


def _name_in(name: str, words: frozenset[str]) -> bool:
    for part in re.split(f"[-{_APOSTROPHES}]", name):
        folded = _fold(part)
        if folded in ("s", ""):
            continue  # a possessive's "s"
        if folded not in words and not (folded.endswith("s") and folded[:-1] in words):
            return False
    return True


def _dates_in(text: str, blank: bool = True) -> tuple[set[str], str]:
    """Dates written in `text` (as 2023-05-01 or 2023-05), and the text with them blanked (when
    `blank`: a later, shorter pattern must not read a date's parts again)."""
    found: set[str] = set()
    for pattern, (year, month, day) in _DATES:
        for match in pattern.finditer(text):
            date = _date(match, year, month, day)
            if date is not None:
                found.add(date)
        if blank:
            text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return found, text


def _date(match: re.Match[str], year: int, month: int, day: int | None) -> str | None:
    written = match.group(month)
    number = int(written) if written.isdigit() else _MONTHS.get(written.lower().rstrip("."))
    if number is None or not 1 <= number <= 12:
        return None
    date = f"{int(match.group(year)):04d}-{number:02d}"
    return f"{date}-{int(match.group(day)):02d}" if day is not None else date


def _number_forms(match: re.Match[str]) -> Iterable[str]:
    """The forms a written number may take in another text: its value, and with its scale
    word ("2 million") also the scaled value."""
    written = match.group(0).split()[0] if match.group(1) else match.group(0)
    value = _value(written)
    if value is None:
        return [written]
    forms = [_canonical(value)]
    if match.group(1):
        forms.append(_canonical(value * _SCALES[match.group(1).lower()]))
    return forms


def _spelled_numbers(text: str) -> set[str]:
    """Numbers a page spells out ("two to three", "the first of June", "twenty-one"), which
    the report may write in digits."""
    found = set()
    for match in _SPELLED.finditer(text.lower()):
        first, units = match.group(1), match.group(2)
        found.add(str(_NUMBER_WORDS[first] + (_NUMBER_WORDS[units] if units else 0)))
    return found


def _value(written: str) -> Decimal | None:
    if _THOUSANDS.fullmatch(written):
        written = re.sub(r"[,\u00a0\u202f\u2009]", "", written)
    elif "," in written and "." not in written:
        written = written.replace(",", ".")  # a decimal comma
    try:
        return Decimal(written)
    except InvalidOperation:
        return None


def _canonical(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _fold(word: str) -> str:
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))
