"""What a fetch yields: a page (main text and links) or why there is none."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass
from typing import Any

from outrider.server.fetch.extract import Link
from outrider.server.fetch.shown import without_urls

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Page:
    url: str  # as requested
    final_url: str  # after redirects
    title: str
    text: str  # Markdown
    links: tuple[Link, ...]
    content_type: str
    rendered: bool = False  # text came from the JavaScript fallback
    canonical: str = ""  # the URL the page names as its canonical copy, if any

    def fingerprint(self) -> str:
        """A hash of the text's words, lower-cased: markup, punctuation and spacing do not
        count, so a page and its printable copy or mirror hash alike."""
        words = " ".join(_WORD.findall(self.text.lower()))
        return hashlib.sha256(words.encode()).hexdigest()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Page:
        links = tuple(Link(**link) for link in data.pop("links", []))
        return cls(links=links, **data)


@dataclass(frozen=True)
class FetchOutcome:
    url: str
    page: Page | None = None
    cached: bool = False
    robots_blocked: bool = False  # robots.txt disallows it; nothing was requested
    guard_blocked: bool = False  # the network guard refused the address; nothing was sent
    error: str = ""

    def why_not(self) -> str:
        """Why there is no page, fit for events and logs: no URL in it is shown whole."""
        if self.robots_blocked:
            return "disallowed by robots.txt"
        why = without_urls(self.error) or "no page"
        return f"refused: {why}" if self.guard_blocked else why

    @property
    def requested(self) -> bool:
        """Whether this counts as a fetch (network or cache), i.e. it was not refused upfront."""
        return not (self.robots_blocked or self.guard_blocked)
