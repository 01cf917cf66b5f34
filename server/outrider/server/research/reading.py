"""Fetching candidate pages into sources, and the analyser's verdict on them."""

from __future__ import annotations

import asyncio
import logging

from outrider.server.fetch.page import FetchOutcome
from outrider.server.fetch.shown import shown_host
from outrider.server.research import prompts
from outrider.server.research.budget import BudgetExhausted
from outrider.server.research.duplicates import admit
from outrider.server.research.llm import ModelFailed
from outrider.server.research.run import ResearchRun
from outrider.server.research.schemas import LEVELS, AnalysisOut, PageAnalysisOut
from outrider.server.research.state import Analysis, Candidate, Source

log = logging.getLogger(__name__)
ANALYSE_BATCH = 10
MAX_FOLLOWS_PER_PAGE = 3


async def read(
    run: ResearchRun,
    candidates: list[Candidate],
    iteration: int,
    failures: list[tuple[Candidate, FetchOutcome]] | None = None,
) -> list[Source]:
    """Fetches the candidates (within the fetch and time budgets); returns the new sources, not
    the near-duplicates of sources (see duplicates.py). Outcomes without a page are appended to
    `failures` when it is given."""
    candidates = candidates[: run.budget.fetches_left()]
    run.state.attempted.update(c.url for c in candidates)
    outcomes = await _fetch_all(run, [c.url for c in candidates])
    sources = []
    for candidate, outcome in zip(candidates, outcomes, strict=True):
        run.metrics.record_fetch(outcome)
        if outcome.page is None:
            log.info("not read: %s: %s", shown_host(outcome.url), outcome.why_not())
            if failures is not None:
                failures.append((candidate, outcome))
            continue
        source = admit(run.state, outcome.page, candidate, iteration)
        if source is not None:
            sources.append(source)
    return sources


async def _fetch_all(run: ResearchRun, urls: list[str]) -> list[FetchOutcome]:
    seconds = run.budget.research_time_left()
    if not urls or seconds <= 0:
        return [FetchOutcome(url, error="the wall-time budget ran out") for url in urls]
    limit = min(run.fetch_timeout, seconds)
    tasks = [asyncio.create_task(run.fetcher.fetch(u, limit, run.use_cache)) for u in urls]
    done, late = await asyncio.wait(tasks, timeout=seconds)
    for task in late:
        task.cancel()
    await asyncio.gather(*late, return_exceptions=True)
    return [
        t.result() if t in done else FetchOutcome(u, error="the wall-time budget ran out")
        for t, u in zip(tasks, urls, strict=True)
    ]


async def analyse(run: ResearchRun, sources: list[Source], with_links: bool) -> int:
    """Asks the analyser about `sources` in batches; returns how many got no verdict."""
    failed = 0
    for start in range(0, len(sources), ANALYSE_BATCH):
        batch = sources[start : start + ANALYSE_BATCH]
        try:
            verdicts = await run.llm.structured(
                "analyser",
                "analyser",
                prompts.ANALYSER,
                prompts.analyse_request(run.state, batch, with_links),
                AnalysisOut,
            )
        except (ModelFailed, BudgetExhausted) as error:
            log.warning("analysis of %d pages failed: %s", len(batch), error)
            failed += len(batch)
            continue
        failed += _apply(batch, verdicts.pages)
    run.metrics.analyses += len(sources) - failed
    run.metrics.analyses_failed += failed
    return failed


def _apply(batch: list[Source], verdicts: list[PageAnalysisOut]) -> int:
    by_key = {v.id: v for v in verdicts if v.id} | {v.url: v for v in verdicts if v.url}
    missing = 0
    for source in batch:
        verdict = by_key.get(source.id) or by_key.get(source.url) or by_key.get(source.page.url)
        if verdict is None:
            missing += 1
            continue
        follow = followed(source, verdict.follow)
        source.analysis = Analysis(
            LEVELS[verdict.relevance], LEVELS[verdict.reliability], verdict.summary, follow
        )
    return missing


def followed(source: Source, chosen: list[str]) -> list[str]:
    """The page's links the analyser chose, by their URLs as fetched: a chosen URL may be one as
    the prompt showed it (defused, cut at 200 characters)."""
    links = {prompts.shown_url(link.url): link.url for link in source.page.links}
    links |= {link.url: link.url for link in source.page.links}
    return [links[url] for url in chosen if url in links][:MAX_FOLLOWS_PER_PAGE]
