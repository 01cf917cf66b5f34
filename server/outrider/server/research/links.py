"""Every URL in the writer's text, in whatever Markdown shape it comes: inline links and images,
reference links and their definitions, autolinks and bare URLs. A URL of a page the run fetched
becomes that page's id citation; any other URL is removed (its label stays) and reported."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from urllib.parse import urldefrag

_TITLE = r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?"""
_TARGET = r"<?((?:[^\s()<>]|\([^\s()<>]*\))*)>?"  # one level of parentheses, as in Wikipedia's
_INLINE = re.compile(r"!?\[([^\]\n]*)\]\(\s*" + _TARGET + _TITLE + r"\s*\)")
_DEFINITION = re.compile(
    r"^[ \t]{0,3}\[([^\]\n]+)\]:[ \t]*<?(\S+?)>?" + _TITLE + r"[ \t]*(?:\n|$)", re.M
)
_REFERENCE = re.compile(r"!?\[([^\]\n]+)\](?:\[([^\]\n]*)\])?")
_AUTOLINK = re.compile(r"<((?:https?|ftp)://[^>\s]*)>", re.I)
_BARE = re.compile(r"\b(?:(?:https?|ftp)://|www\.)[^\s<>\"'`\[\]]+", re.I)
_TRAILING = ".,;:!?'\"*_"
_ID = re.compile(r"\s*S\d+(?:\s*,\s*S\d+)*\s*")  # the label of an id citation, [S1] or [S1, S2]

Lookup = Callable[[str], "str | None"]


def rewrite_urls(text: str, urls: Mapping[str, str], removed: list[str]) -> str:
    """`urls`: every URL of a fetched page -> its source id. Appends removed URLs to `removed`."""
    find = _finder(urls)
    definitions: dict[str, str] = {}
    text = _DEFINITION.sub(lambda m: _define(m, definitions, find, removed), text)
    text = _INLINE.sub(lambda m: _cite(m.group(1), m.group(2), find, removed), text)
    text = _REFERENCE.sub(lambda m: _resolve(m, definitions, find), text)
    text = _AUTOLINK.sub(lambda m: _cite("", m.group(1), find, removed), text)
    return _BARE.sub(lambda m: _bare(m.group(0), find, removed), text)


def _finder(urls: Mapping[str, str]) -> Lookup:
    def find(url: str) -> str | None:
        if url.lower().startswith("www."):
            return find("https://" + url) or find("http://" + url)
        return urls.get(url) or urls.get(urldefrag(url).url)

    return find


def _cite(label: str, url: str, find: Lookup, removed: list[str]) -> str:
    source = find(url)
    if source is None:
        if url:
            removed.append(url)
        return label
    return f"{label} [{source}]" if label else f"[{source}]"


def _define(
    match: re.Match[str], definitions: dict[str, str], find: Lookup, removed: list[str]
) -> str:
    """Drops a reference definition line; its references are resolved where they are used."""
    name, url = match.group(1).strip().lower(), match.group(2)
    definitions[name] = url
    if find(url) is None:
        removed.append(url)
    return ""


def _resolve(match: re.Match[str], definitions: dict[str, str], find: Lookup) -> str:
    """`[label][ref]`, `[label][]` or `[label]`: the label, cited when it names a fetched page.
    A label whose reference has no definition left dangles: it becomes plain text too."""
    label, ref = match.group(1), match.group(2)
    name = (ref or label).strip().lower()
    if _ID.fullmatch(label) or (ref is None and name not in definitions):
        return match.group(0)  # id citations, or brackets that are no link
    url = definitions.get(name, "")
    source = find(url) if url else None
    return f"{label} [{source}]" if source else label


def _bare(url: str, find: Lookup, removed: list[str]) -> str:
    kept = _trim(url)
    return _cite("", kept, find, removed) + url[len(kept) :]


def _trim(url: str) -> str:
    """A bare URL without the sentence's punctuation (or a closing parenthesis it did not open)."""
    while True:
        trimmed = url.rstrip(_TRAILING)
        if trimmed.endswith(")") and trimmed.count("(") < trimmed.count(")"):
            trimmed = trimmed[:-1]
        if trimmed == url:
            return url
        url = trimmed
