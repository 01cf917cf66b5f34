"""What a text states that can be checked against another text, by spelling alone: its numbers,
dates and names, normalised (support.py decides which sentences must hold up).

Normalised: words in lower case without accents (a possessive's "'s" and a plural's "s" may
differ); numbers without thousands separators or trailing zeros (1,200 = 1200, 3.50 = 3.5,
"2 million" = 2000000; spelled-out numbers are read whole, "one hundred and forty-three" = 143,
spelled.py); dates as year-month(-day) whatever their spelling (2023-05-01, 1 May 2023, May 1,
2023). A name holding digits (COVID-19, F-35, GPT-4) is compared whole, letters and digits
without their hyphens (GPT-4 = GPT4 = GPT 4). An acronym is held by a page that names what it
stands for ("UK": "United Kingdom").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from outrider.server.research.names import APOSTROPHES, FUNCTION_WORDS, fold, names_in
from outrider.server.research.spelled import spelled_numbers

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
_NUMBER = re.compile(
    r"\d+(?:[.,\u00a0\u202f\u2009]\d+)*(?:\s+(hundred|thousand|million|billion))?", re.I
)
_SCALES = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9}
_THOUSANDS = re.compile(r"\d{1,3}(?:[,\u00a0\u202f\u2009]\d{3})+(?:\.\d+)?")
_PLAIN_WORD = re.compile(r"[^\W\d_]+")
_CODE = re.compile(rf"[^\W_][\w{APOSTROPHES}-]*")  # a page's tokens that may hold digits
_WORD_AND_NUMBER = re.compile(r"\b([^\W\d_]+) (\d+)\b")  # "GPT 4", as GPT-4 may be written
_NOT_ALNUM = re.compile(r"[\W_]+")
_INSIDE = re.compile(r"(?<=[\w,;] )([^\W\d_]+)")  # a word after a word: inside a sentence
_HEADING = re.compile(r"^[ \t]*#.*$", re.M)  # a page's headings and titles name no names
# A run of capitalised words ("United Kingdom", "Bank of England"), for the acronyms it allows.
_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w-]*(?:\s+(?:(?:of|the|and|for)\s+)?[A-Z][\w-]*)+")


@dataclass(frozen=True)
class Evidence:
    """What a text holds, normalised: its words (and the acronyms its names allow), the words it
    writes in lower case and those it capitalises inside a sentence (names), its tokens that hold
    digits (codes), its numbers and its dates."""

    words: frozenset[str]
    lower_words: frozenset[str]
    names: frozenset[str]
    codes: frozenset[str]
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
    dates = dates_in(text, blank=False)[0]
    numbers = {form for match in _NUMBER.finditer(text) for form in _number_forms(match)}
    numbers |= set(spelled_numbers(text))
    words = set(_PLAIN_WORD.findall(text))
    running = _HEADING.sub("", text)
    inside = {m.group(1) for m in _INSIDE.finditer(running) if m.group(1)[0].isupper()}
    codes = {_code(t) for t in _CODE.findall(text) if _has_digit_and_letter(t)}
    codes |= {_code(a + b) for a, b in _WORD_AND_NUMBER.findall(text)}
    return Evidence(
        frozenset(fold(w) for w in words) | _acronyms(text),
        frozenset(fold(w) for w in words if w.islower()),
        frozenset(fold(w) for w in inside),
        frozenset(codes),
        frozenset(numbers),
        frozenset(dates | {date[:7] for date in dates}),
    )


def extract_facts(sentence: str, is_name: Callable[[str], bool], lead: str = "") -> Facts:
    """The facts of a plain sentence (no citation markers or link targets) and of its lead-in
    (`lead`, "Bridge opening" of "**Bridge opening**: ..."), whose words, like the words that
    open a sentence, are names only when `is_name` (of the folded word) says so (names.py)."""
    lead_dates, lead = dates_in(lead)
    dates, rest = dates_in(sentence)
    numbers = tuple(tuple(_number_forms(match)) for match in _NUMBER.finditer(f"{lead} {rest}"))
    numbers += tuple((n,) for n in spelled_numbers(f"{lead} {rest}", loose=False))
    names = names_in(lead, is_name, every_word_opens=True) + names_in(rest, is_name)
    return Facts(numbers, tuple(sorted(dates | lead_dates)), tuple(names))


def supported(facts: Facts, cited: list[Evidence]) -> bool:
    numbers = frozenset().union(*(e.numbers for e in cited))
    dates = frozenset().union(*(e.dates for e in cited))
    words = frozenset().union(*(e.words for e in cited))
    codes = frozenset().union(*(e.codes for e in cited))
    return (
        all(any(form in numbers for form in forms) for forms in facts.numbers)
        and all(date in dates for date in facts.dates)
        and all(_name_in(name, words, codes) for name in facts.names)
    )


def content_words(text: str) -> set[str]:
    """The words of `text` that carry meaning (no function words or short ones), folded, a
    plural as its singular ("ferries": "ferry")."""
    return {_singular(fold(w)) for w in _PLAIN_WORD.findall(text) if _carries_meaning(w)}


def _carries_meaning(word: str) -> bool:
    return len(word) > 2 and word.lower() not in FUNCTION_WORDS


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _name_in(name: str, words: frozenset[str], codes: frozenset[str]) -> bool:
    if any(c.isdigit() for c in name):
        code = _code(name)
        return code in codes or (code.endswith("s") and code[:-1] in codes)
    for part in re.split(f"[-{APOSTROPHES}]", name):
        folded = fold(part)
        if folded in ("s", ""):
            continue  # a possessive's "s"
        if folded not in words and not (folded.endswith("s") and folded[:-1] in words):
            return False
    return True


def _code(token: str) -> str:
    return _NOT_ALNUM.sub("", fold(token))


def _has_digit_and_letter(token: str) -> bool:
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def _acronyms(text: str) -> frozenset[str]:
    """The initials of each run of capitalised words, with and without its joining words:
    "Bank of England" allows BE and BoE."""
    found = set()
    for match in _CAPITALISED_RUN.finditer(text):
        words = match.group(0).split()
        found.add("".join(w[0] for w in words if w[0].isupper()).lower())
        found.add("".join(w[0] for w in words).lower())
    return frozenset(found)


def dates_in(text: str, blank: bool = True) -> tuple[set[str], str]:
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
