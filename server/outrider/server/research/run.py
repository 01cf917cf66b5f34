"""One research run as its phases see it, and how a phase fails the run."""

from __future__ import annotations

from dataclasses import dataclass

from outrider.server.fetch.fetcher import Fetcher
from outrider.server.research.budget import Budget
from outrider.server.research.events import Emitter
from outrider.server.research.llm import Llm
from outrider.server.research.metrics import RunMetrics
from outrider.server.research.state import ResearchState
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


@dataclass
class ResearchRun:
    emit: Emitter
    state: ResearchState
    budget: Budget
    metrics: RunMetrics
    llm: Llm
    fetcher: Fetcher
    search: SearchChain
    use_cache: bool
    fetch_timeout: float  # seconds per page
    include_full_text: bool
