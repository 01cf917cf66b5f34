"""One research run as its phases see it, and how a phase fails the run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from outrider.server.fetch.page import FetchOutcome
from outrider.server.research.budget import Budget
from outrider.server.research.events import Emitter
from outrider.server.research.llm import Llm
from outrider.server.research.metrics import RunMetrics
from outrider.server.research.state import Candidate, ResearchState
from outrider.server.search.chain import SearchChain


class PhaseFailed(Exception):
    """Ends the run with an `error` event naming the activity (and iteration) that failed."""

    def __init__(
        self, activity: int, code: str, message: str, iteration: int | None = None
    ) -> None:
        super().__init__(message)
        self.activity = activity  # re.ResearchActivity
        self.code = code  # stable UPPER_SNAKE, e.g. SEARCH_FAILED
        self.message = message
        self.iteration = iteration


class Fetching(Protocol):
    """How a run fetches a page: `fetch.fetcher.Fetcher`, or a research session's pages first
    (`session_pages.SessionReading`)."""

    async def fetch(self, url: str, limit: float, use_cache: bool = True) -> FetchOutcome: ...


@dataclass
class ResearchRun:
    emit: Emitter
    state: ResearchState
    budget: Budget
    metrics: RunMetrics
    llm: Llm
    fetcher: Fetching
    search: SearchChain
    use_cache: bool
    fetch_timeout: float  # seconds per page
    include_full_text: bool
    earlier: str = ""  # a run in a session: what its earlier runs asked and reported
    reread: list[Candidate] = field(default_factory=list)  # pages they cited, to read again
