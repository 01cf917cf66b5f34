"""The research agent: plan, iterate (search, read, analyse, follow, evaluate), outline, write,
judge, and publish a report whose every citation points to a page the run fetched."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable

import httpx

from outrider.server.core.errors import OutriderError
from outrider.server.core.runs.agent import Params, RunContext
from outrider.server.core.runs.session_seats import Kept, OnLost
from outrider.server.core.vault.profile_state import StorageState
from outrider.server.fetch.cache import SqliteCache
from outrider.server.fetch.fetcher import Fetcher
from outrider.server.models.registry import RunModels
from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import NetworkGuard
from outrider.server.research.budget import Budget
from outrider.server.research.checkpoint import Saver, restore
from outrider.server.research.events import Emitter
from outrider.server.research.finishing import publish
from outrider.server.research.iterating import iterate
from outrider.server.research.llm import Llm
from outrider.server.research.metrics import RunMetrics
from outrider.server.research.modes import budget_for, effective_mode
from outrider.server.research.planning import plan, prefetch, reread
from outrider.server.research.run import PhaseFailed, ResearchRun
from outrider.server.research.session_pages import (
    SessionPages,
    SessionReading,
    earlier_candidates,
)
from outrider.server.research.state import (
    ITERATE,
    OUTLINE,
    PLAN,
    PREFETCH,
    WRITE,
    ResearchState,
)
from outrider.server.research.writing import outline, write_and_judge
from outrider.server.search.factory import build_chain
from outrider.server.settings import Settings
from outrider.server.telemetry.steps import step
from outrider.v1 import params_pb2, run_pb2
from outrider.v1 import research_events_pb2 as re

log = logging.getLogger(__name__)
PRUNE_INTERVAL = 600.0  # seconds between two prunings of the research caches


class ResearchAgent:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._guard = NetworkGuard(settings.network_allow)
        cache_path = settings.data_dir / "research-cache.sqlite3"
        research = settings.research
        self._pages = SqliteCache(cache_path, "pages", research.fetch_cache_ttl)
        self._searches = SqliteCache(cache_path, "searches", research.search_cache_ttl)
        self._pruned_at = -PRUNE_INTERVAL

    def preflight(self, params: Params, options: params_pb2.RunOptions) -> None:
        """Resolves the models of the roles this run's mode uses."""
        assert isinstance(params, params_pb2.ResearchParams)
        self._models(options).check(budget_for(params.mode).roles)

    async def readiness(self) -> str:
        """The default model of the roles a run of the default mode uses. Chromium is optional
        here: it only renders pages whose text needs JavaScript."""
        try:
            self._models(params_pb2.RunOptions()).check(budget_for(0).roles)
        except OutriderError as error:
            return error.message
        return ""

    async def aclose(self) -> None:
        """Nothing outlives a run: clients, browsers and cache connections are per run or call."""

    def _models(self, options: params_pb2.RunOptions) -> RunModels:
        return RunModels(
            self._settings.model,
            self._settings.role_models,
            options.model,
            self._settings.providers,
        )

    async def run(self, ctx: RunContext) -> run_pb2.RunOutcome:
        await self._prune_caches()
        async with self._open(ctx) as run:
            save = Saver(run, ctx.checkpoints)
            if _resume(run, ctx):
                save.saved_all()
            else:
                run.emit(
                    "start", re.ResearchStart(message=f"Research started ({run.budget.mode.name})")
                )
            try:
                report = await _research(run, save)
            except PhaseFailed as failure:
                _emit_error(run, failure)
                _remember(ctx, run, None)
                return run_pb2.RunOutcome(
                    success=False, error_code=failure.code, error_message=failure.message
                )
            _remember(ctx, run, report)
            run.emit("complete", report)
            return run_pb2.RunOutcome(success=True, result=report.report)

    async def keep(
        self, start_url: str, on_lost: OnLost, storage_state: StorageState | None = None
    ) -> Kept:
        """A research session's pages (see research/session_pages.py); it opens no browser, so
        it has no use for a profile's state (a research session cannot name one)."""
        return SessionPages()

    async def _prune_caches(self) -> None:
        """Expired cache entries go, at most every PRUNE_INTERVAL, in a thread."""
        if time.monotonic() - self._pruned_at < PRUNE_INTERVAL:
            return
        self._pruned_at = time.monotonic()
        for cache in (self._pages, self._searches):
            await asyncio.to_thread(cache.prune_expired)

    @contextlib.asynccontextmanager
    async def _open(self, ctx: RunContext) -> AsyncIterator[ResearchRun]:
        params, research = ctx.research, self._settings.research
        mode = effective_mode(params.mode)
        metrics = RunMetrics(self._settings.providers.prices, ctx.count_usage)
        budget = Budget(budget_for(mode, research.wall_time_cap), metrics)
        timeout = params.fetch_timeout if params.HasField("fetch_timeout") else None
        domains = DomainPolicy.of(ctx.options.allowed_domains, ctx.options.blocked_domains)
        chromium = self._settings.chromium_path
        models = self._models(ctx.options)
        pages = session_pages(ctx)
        async with (
            contextlib.aclosing(models),
            httpx.AsyncClient(timeout=research.search_timeout) as client,
            Fetcher(research, self._guard, self._pages, chromium, domains) as fetcher,
        ):
            ttl = self._settings.sessions.page_ttl
            yield ResearchRun(
                emit=Emitter(ctx),
                state=ResearchState(params.query, mode, budget.mode),
                budget=budget,
                metrics=metrics,
                llm=Llm(models, metrics, budget),
                fetcher=SessionReading(fetcher, pages, ttl, domains) if pages else fetcher,
                search=build_chain(research, self._settings.data_dir, self._searches, client),
                use_cache=not params.nocache,
                fetch_timeout=float(timeout or research.fetch_timeout),
                include_full_text=params.include_full_text,
                earlier=ctx.session.memory if ctx.session else "",
                reread=earlier_candidates(pages) if pages else [],
            )


def session_pages(ctx: RunContext) -> SessionPages | None:
    """The pages of the run's research session; None outside a session."""
    if ctx.session is None:
        return None
    if not isinstance(ctx.session.kept, SessionPages):
        raise OutriderError(f"{ctx.session.name} keeps no research pages on this replica")
    return ctx.session.kept


def _remember(ctx: RunContext, run: ResearchRun, report: re.ResearchComplete | None) -> None:
    """A run in a session ended: its session keeps what it read, and what its report cited."""
    pages = session_pages(ctx)
    if pages is not None:
        cited = [page.url for page in report.metadata.cited_pages] if report else []
        pages.remember(list(run.state.sources.values()), cited)


def _resume(run: ResearchRun, ctx: RunContext) -> bool:
    """Continues from the checkpoint the lost replica saved, when this replica took the run
    over and there is one that fits; False: the run starts from its first phase."""
    body = ctx.checkpoints.resume_point() if ctx.checkpoints is not None else None
    if body is None or not restore(run, body):
        return False
    progress = run.state.progress
    log.info("research continues at %s (iteration %d)", progress.stage, progress.iteration)
    return True


async def _research(run: ResearchRun, save: Callable[[], None]) -> re.ResearchComplete:
    """The stages from where the run's progress says (the first, unless it was taken over),
    checkpointed (`save`) at each boundary up to writing, which starts over when interrupted."""
    state, progress = run.state, run.state.progress
    if progress.stage == PREFETCH:
        with step("research", "prefetch", "research.prefetch"):
            progress.batch = [s.id for s in [*await prefetch(run), *await reread(run)]]
        progress.stage = PLAN
        save()
    if progress.stage == PLAN:
        with step("research", "plan", "research.plan"):
            await plan(run, state.sources_of(progress.batch))
        progress.stage, progress.queries = ITERATE, list(state.initial_queries)
        save()
    if progress.stage == ITERATE:
        with step("research", "iterate", "research.iterate"):
            await iterate(run, save)
    if progress.stage == OUTLINE:
        if run.budget.mode.analyse:
            with step("research", "outline", "research.outline"):
                await outline(run)
        progress.stage = WRITE
        save()
    with step("research", "write", "research.write"):
        draft = await write_and_judge(run)
    with step("research", "publish", "research.publish"):
        return publish(run, draft)


def _emit_error(run: ResearchRun, failure: PhaseFailed) -> None:
    error = re.ResearchError(
        error=re.ResearchErrorDetail(name=failure.code, message=failure.message),
        message=failure.message,
        activity=failure.activity,  # type: ignore[arg-type]
    )
    if failure.iteration is not None:
        error.iteration = failure.iteration
    run.emit("error", error)
