"""What a research run knows so far: plan, sources (fetched pages), evaluations, judgments."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from outrider.server.fetch.extract import file_name
from outrider.server.fetch.page import Page
from outrider.server.research.modes import ModeBudget
from outrider.server.research.titles import plain_title
from outrider.v1 import research_events_pb2 as re


@dataclass
class Analysis:
    relevance: int  # re.Level
    reliability: int  # re.Level
    summary: str
    follow: list[str] = field(default_factory=list)  # links worth following, from the page

    @property
    def quality(self) -> bool:
        """Medium or better relevance and reliability."""
        return min(self.relevance, self.reliability) >= re.LEVEL_MEDIUM


@dataclass(frozen=True)
class Candidate:
    """A URL the run may fetch, and where it came from."""

    url: str
    url_source: int  # re.UrlSource
    title: str = ""
    parent_url: str | None = None
    depth: int | None = None


@dataclass
class Source:
    """A page the run fetched; only these may be cited, by `id`."""

    id: str
    page: Page
    candidate: Candidate
    iteration: int
    analysis: Analysis | None = None
    aliases: set[str] = field(default_factory=set)  # URLs of fetched duplicates of this page

    @property
    def url(self) -> str:
        return self.page.final_url

    @property
    def title(self) -> str:
        """The page's title as the run shows it (plain_title); without one its search title,
        file name or host, never its URL."""
        listed = self.candidate.title
        if listed in (self.url, self.page.url):
            listed = ""
        for title in (self.page.title, listed, file_name(self.url)):
            shown = plain_title(title)
            if shown:
                return shown
        return self.domain

    @property
    def domain(self) -> str:
        return urlsplit(self.url).hostname or ""


# Stages of a run, in order; a checkpoint names the one to continue with.
PREFETCH, PLAN, ITERATE, OUTLINE, WRITE = "prefetch", "plan", "iterate", "outline", "write"
# Steps of an iteration, in order.
SEARCH, READ, ANALYSE, FOLLOW, EVALUATE = "search", "read", "analyse", "follow", "evaluate"


@dataclass
class Progress:
    """Where the run is: the stage (and, while iterating, the step) to do next. Saved with
    the state at each phase boundary, so a run taken over continues from there."""

    stage: str = PREFETCH
    iteration: int = 1
    step: str = SEARCH
    queries: list[str] = field(default_factory=list)  # this iteration's
    batch: list[str] = field(default_factory=list)  # source ids the next step works on
    read_failed: int = 0  # pages of this iteration's reading that gave no source
    copies: int = 0  # pages of this iteration's reading dropped as copies of sources
    resumed: bool = False  # continuing a checkpoint: the interrupted phase starts again


@dataclass
class ResearchState:
    query: str
    mode: int  # re.ResearchMode
    budget: ModeBudget
    objective: str = ""
    plan: str = ""
    complexity: int = re.QUERY_COMPLEXITY_MODERATE
    questions: list[str] = field(default_factory=list)
    initial_queries: list[str] = field(default_factory=list)
    sources: dict[str, Source] = field(default_factory=dict)
    seen_urls: set[str] = field(default_factory=set)  # every URL queued or found so far
    attempted: set[str] = field(default_factory=set)  # every URL handed to the fetcher
    url_queries: dict[str, list[str]] = field(default_factory=dict)  # URL -> queries finding it
    pending: list[Candidate] = field(default_factory=list)  # found, not fetched yet
    executed_queries: list[list[str]] = field(default_factory=list)
    gap_evaluations: list[re.GapEvaluation] = field(default_factory=list)
    judgments: list[re.Judgment] = field(default_factory=list)
    outline: re.ReportOutline | None = None
    iterations: int = 0
    stop_note: str = ""  # why iterating stopped, in words
    fingerprints: dict[str, str] = field(default_factory=dict)  # text fingerprint -> source id
    duplicates: int = 0  # fetched pages dropped as near-duplicates of a source
    progress: Progress = field(default_factory=Progress)

    def add_source(self, page: Page, candidate: Candidate, iteration: int) -> Source:
        source = Source(f"S{len(self.sources) + 1}", page, candidate, iteration)
        self.sources[source.id] = source
        self.fingerprints.setdefault(page.fingerprint(), source.id)
        return source

    def sources_of(self, ids: list[str]) -> list[Source]:
        return [self.sources[i] for i in ids if i in self.sources]

    def analysed(self) -> list[Source]:
        return [s for s in self.sources.values() if s.analysis is not None]

    def known_urls(self) -> dict[str, str]:
        """Every URL of a fetched page (as requested, after redirects, or of a fetched duplicate)
        -> its source id."""
        urls = {url: s.id for s in self.sources.values() for url in s.aliases}
        urls |= {s.page.url: s.id for s in self.sources.values()}
        return urls | {s.page.final_url: s.id for s in self.sources.values()}
