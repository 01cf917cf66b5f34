"""What a fetch yields: a page (main text and links) or why there is none."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from outrider.server.fetch.extract import Link


@dataclass(frozen=True)
class Page:
    url: str  # as requested
    final_url: str  # after redirects
    title: str
    text: str  # Markdown
    links: tuple[Link, ...]
    content_type: str
    rendered: bool = False  # text came from the JavaScript fallback

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

    @property
    def requested(self) -> bool:
        """Whether this counts as a fetch (network or cache), i.e. it was not refused upfront."""
        return not (self.robots_blocked or self.guard_blocked)
