"""Near-duplicate pages: a page and its printable copy, a mirror, the same article under two URLs.

Two pages are one when either names the other's URL as its canonical link (or both name the same
one), or when their texts are equal once case, punctuation and spacing are ignored. The run keeps
one source for them: the copy the others name as canonical when it is fetched, else the first."""

from __future__ import annotations

from outrider.server.fetch.page import Page
from outrider.server.research.state import Candidate, ResearchState, Source


def admit(state: ResearchState, page: Page, candidate: Candidate, iteration: int) -> Source | None:
    """A new source for `page`, or None when it duplicates one the run has (then merged)."""
    kept = duplicate_of(state, page)
    if kept is None:
        return state.add_source(page, candidate, iteration)
    _merge(kept, page)
    state.fingerprints.setdefault(page.fingerprint(), kept.id)
    state.duplicates += 1
    return None


def names(page: Page) -> set[str]:
    """The URLs a page answers to: as requested, after redirects, and its canonical link."""
    return {page.url, page.final_url} | ({page.canonical} if page.canonical else set())


def duplicate_of(state: ResearchState, page: Page) -> Source | None:
    """The source `page` duplicates, or None when it is new."""
    urls = names(page)
    for source in state.sources.values():
        if urls & names(source.page):
            return source
    return state.sources.get(state.fingerprints.get(page.fingerprint(), ""))


def _merge(source: Source, page: Page) -> None:
    """Keeps one source for `page` and its duplicate `source`: the canonical copy's page, and
    both copies' URLs (citing either cites the source)."""
    if source.page.canonical == page.final_url and page.canonical in ("", page.final_url):
        source.aliases.update(names(source.page) - names(page))
        source.page = page
    else:
        source.aliases.update(names(page) - names(source.page))
