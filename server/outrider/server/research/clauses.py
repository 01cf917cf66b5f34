"""The least of a sentence that is false: when an attribution ("According to X, ..."), an
aside (in brackets, between dashes or commas as a "which" clause) or a closing clause ("; ...",
", and ...", ", which ...", " — ...") states a number, date or name the pages it cites lack, that
part goes and the rest stays, provided the rest still cites a page, its pages hold everything
it states, and it still reads as a sentence. The main clause never goes alone: when it is
false, the whole sentence goes (editing.py)."""

from __future__ import annotations

import re

from outrider.server.research.names import FUNCTION_WORDS
from outrider.server.research.sentences import MARKER, cited_ids
from outrider.server.research.support import SupportCheck, lead_in_end

# What ends a sentence: its citations and stops, in any order ("... [S1].", "... . [S1]").
_TAIL = re.compile(rf"(?:\s*(?:{MARKER.pattern}|[.!?]+))+\s*$")
_ASIDE = re.compile(r"\s*\([^()]*\)|\s+[\u2014\u2013]\s+[^\u2014\u2013]+?\s+[\u2014\u2013](?=\s)")
_RELATIVE = r"which|who|whose"
_CLOSING = re.compile(
    rf"\s*;\s+|,\s+(?=(?:and|but|while|whereas|although|though|including|{_RELATIVE})\s)"
    r"|\s+[\u2014\u2013]\s+|\s*\u2014\s*"
)
_EMBEDDED = re.compile(rf",\s+(?:{_RELATIVE})\s[^,;]*,")  # "The fleet, which ..., numbers"
_INTRO = re.compile(r"[^,;()\[\]]+,\s+")
_INTRO_WORDS = 8
# An opening phrase that may go names who says it ("According to X,"); one that sets a time,
# place or condition ("In 1979,", "Before 1850,") stays: without it the claim says more.
_INTRO_OPENERS = frozenset({"according", "per", "citing"})
# Words that cannot open a sentence that stands alone.
_DEPENDENT = frozenset(
    "and but or nor so yet which who whom whose that while whereas although though because "
    "including".split()
)
_MIN_WORDS = 3
_TOKEN = re.compile(r"\w[\w'\u2019-]*")  # words and numbers
_STRIP = " \t,;:\u2014\u2013-()"
_GAPS = (
    (re.compile(r"\s+([,.;:!?])"), r"\1"),
    (re.compile(r",(?=\s*(?:\[|[.!?]|$))"), ""),
    (re.compile(r"\s{2,}"), " "),
)


def trimmed(sentence: str, check: SupportCheck) -> tuple[str, list[str]] | None:
    """`sentence` without its false parts, and those parts (markers left out), or None when the
    whole sentence must go."""
    ids = check.cited(sentence)
    if not ids:
        return None
    start = lead_in_end(sentence)
    tail = _TAIL.search(sentence, start)
    end = tail.start() if tail else len(sentence)
    core, closing = sentence[start:end], sentence[end:]
    dropped = [
        (s, e)
        for s, e in _parts(core)
        if check.unsupported(_alone(core[s:e], (e == len(core) and cited_ids(closing)) or ids))
    ]
    if not dropped:
        return None
    rest = _close_gaps(_without(core, dropped))
    if dropped[0][0] == 0:
        rest = rest[:1].upper() + rest[1:]
    if dropped[-1][1] == len(core) and cited_ids(rest):
        closing = MARKER.sub("", closing).replace(" .", ".").rstrip() or "."  # its own citation
    prefix = sentence[:start]
    kept = prefix + (" " if prefix and not prefix[-1].isspace() else "") + rest + closing
    list_like = "," in rest and any(re.match(r",\s+and\s", core[s:e]) for s, e in dropped)
    if not check.cited(kept) or check.unsupported(kept) or not _reads_as_sentence(rest, list_like):
        return None
    return kept, [_bare(core[s:e]) for s, e in dropped]


def _parts(core: str) -> list[tuple[int, int]]:
    """The spans of `core` that may go: its opening phrase, asides and closing clauses, the
    first found of any that overlap."""
    found: list[tuple[int, int]] = []
    intro = _INTRO.match(core)
    if intro and _opens_phrase(intro.group(0)):
        found.append((0, intro.end()))
    found += [m.span() for m in _ASIDE.finditer(core)]
    found += [m.span() for m in _EMBEDDED.finditer(core)]
    cuts = [m.start() for m in _CLOSING.finditer(core) if m.start() > 0]
    found += list(zip(cuts, [*cuts[1:], len(core)], strict=False))
    parts: list[tuple[int, int]] = []
    for span in sorted(found):
        if not parts or span[0] >= parts[-1][1]:
            parts.append(span)
    return parts


def _opens_phrase(phrase: str) -> bool:
    words = phrase.split()
    return 0 < len(words) <= _INTRO_WORDS and words[0].lower() in _INTRO_OPENERS


def _alone(part: str, ids: list[str]) -> str:
    """A part as a sentence of its own, citing `ids` (what cites it) if it cites nothing."""
    bare = part.strip(_STRIP)
    return bare if cited_ids(bare) or not ids else f"{bare} [{', '.join(ids)}]"


def _without(core: str, dropped: list[tuple[int, int]]) -> str:
    for start, end in reversed(dropped):
        core = core[:start] + " " + core[end:]
    return core


def _close_gaps(text: str) -> str:
    for pattern, replacement in _GAPS:
        text = pattern.sub(replacement, text)
    return text.strip(_STRIP.replace("(", "").replace(")", ""))


def _reads_as_sentence(rest: str, list_like: bool) -> bool:
    """At least three words, not opening on a word that leans on another clause, not closing
    on a function word, and (after ", and ..." went) no list left without its last item."""
    words = [w.lower() for w in _TOKEN.findall(MARKER.sub(" ", rest))]
    return (
        len(words) >= _MIN_WORDS
        and words[0] not in _DEPENDENT
        and words[-1] not in FUNCTION_WORDS
        and not list_like
    )


def _bare(part: str) -> str:
    return " ".join(MARKER.sub("", part).split()).strip(_STRIP)
