"""A research session (core/sessions/): the pages its runs read and cited, kept on the replica
that holds the session, so a follow-up question starts from them. A run in the session reads
each page the earlier runs cited again from here, not from the web (unless the page is older
than OUTRIDER_SESSION_PAGE_TTL, or the run asked for nocache), and may cite it; its fetches of
pages the session already read are answered here too. What it read joins the session's pages
when it ends."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

from outrider.server.fetch.page import FetchOutcome, Page
from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import BlockedDestination
from outrider.server.research.run import Fetching
from outrider.server.research.state import Candidate, Source
from outrider.v1 import research_events_pb2 as re

MAX_PAGES = 200  # pages a session keeps (the oldest read go first)
MAX_REREAD = 8  # cited pages of earlier runs a follow-up reads again


@dataclass(frozen=True)
class ReadPage:
    page: Page
    candidate: Candidate
    read_at: float  # time.monotonic() when it was fetched


class SessionPages:
    """What a research session keeps (`runs/session_seats.Kept`)."""

    def __init__(self) -> None:
        self._pages: OrderedDict[str, ReadPage] = OrderedDict()
        self._cited: list[str] = []  # URLs the earlier runs cited, newest last

    def where(self) -> tuple[str, str]:
        return ("", "")  # no browser: no page it is on

    async def aclose(self) -> None:
        self._pages.clear()

    def fresh(self, url: str, ttl: float) -> ReadPage | None:
        found = self._pages.get(url)
        if found is None or time.monotonic() - found.read_at > ttl:
            return None
        return found

    def cited(self) -> list[ReadPage]:
        """The pages the earlier runs cited, the newest citations first (at most MAX_REREAD)."""
        pages = [self._pages[url] for url in reversed(self._cited) if url in self._pages]
        return pages[:MAX_REREAD]

    def remember(self, sources: list[Source], cited: list[str]) -> None:
        """A run ended: the pages it read, and which of them its report cited."""
        now = time.monotonic()
        for source in sources:
            read = ReadPage(source.page, source.candidate, now)
            for url in {source.page.url, source.url, source.candidate.url}:
                self._pages.pop(url, None)
                self._pages[url] = read
        while len(self._pages) > MAX_PAGES:
            self._pages.popitem(last=False)
        for url in cited:
            if url in self._cited:
                self._cited.remove(url)
            self._cited.append(url)


class SessionReading:
    """A run's fetcher, answering from the session's pages first (`ResearchRun.fetcher`)."""

    def __init__(
        self, fetcher: Fetching, pages: SessionPages, ttl: float, domains: DomainPolicy
    ) -> None:
        self._fetcher = fetcher
        self._pages = pages
        self._ttl = ttl
        self._domains = domains
        self.reused = 0  # fetches the session's pages answered

    async def fetch(self, url: str, limit: float, use_cache: bool = True) -> FetchOutcome:
        found = self._pages.fresh(url, self._ttl) if use_cache else None
        if found is not None and self._allowed(found.page):
            self.reused += 1
            return FetchOutcome(url, found.page, cached=True)
        return await self._fetcher.fetch(url, limit, use_cache)

    def _allowed(self, page: Page) -> bool:
        """The run's own domain policy holds for pages another run of the session read."""
        try:
            for url in {page.url, page.final_url}:
                self._domains.check_url(url)
        except BlockedDestination:
            return False
        return True


def earlier_candidates(pages: SessionPages) -> list[Candidate]:
    """What a follow-up reads again before it plans: the pages the earlier runs cited."""
    return [
        Candidate(
            read.page.final_url,
            read.candidate.url_source or re.URL_SOURCE_SEARCH_RESULT,
            read.page.title,
        )
        for read in pages.cited()
    ]
