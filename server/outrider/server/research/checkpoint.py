"""A research run's checkpoint: its state (plan, queries run, sources with their verdicts,
evaluations, where it is) and what its budgets used, in the part `state`, and each fetched page
(text and links) in a part of its own, `page:<source id>`. Saved at each phase boundary: the
state every time, a page once (again only when a duplicate's canonical copy replaced it), so a
run does not rewrite every page it holds at every boundary. A replica taking the run over
restores it and continues from there: it neither searches nor fetches again what the lost
replica did.

Research runs hold nothing of the caller's but the request the store keeps anyway.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections import Counter
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from outrider.server.core.runs.checkpoints import Checkpoints
from outrider.server.fetch.page import Page
from outrider.server.models.base import Usage
from outrider.server.research.run import ResearchRun
from outrider.server.research.state import Analysis, Candidate, Progress, ResearchState, Source
from outrider.server.search.chain import SearchStats
from outrider.v1 import research_events_pb2 as re

log = logging.getLogger(__name__)

VERSION = 1  # of the layout; a checkpoint of another version is ignored (the run starts over)
STATE = "state"


def page_part(source_id: str) -> str:
    return f"page:{source_id}"


class Saver:
    """Saves the run's checkpoint when called; remembers which pages the store has."""

    def __init__(self, run: ResearchRun, checkpoints: Checkpoints | None) -> None:
        self._run = run
        self._checkpoints = checkpoints
        self._saved: dict[str, Page] = {}  # source id -> the page saved for it

    def __call__(self) -> None:
        if self._checkpoints is None or not self._checkpoints.wanted:
            return
        unsaved = [
            s for s in self._run.state.sources.values() if self._saved.get(s.id) is not s.page
        ]
        parts = {page_part(s.id): s.page.to_json() for s in unsaved}
        parts[STATE] = dump(self._run)  # last: a state is committed after the pages it names
        self._checkpoints.save(parts)
        self.saved_all()

    def saved_all(self) -> None:
        """Every page the run holds is in the store (saved, or restored from there)."""
        self._saved = {s.id: s.page for s in self._run.state.sources.values()}


def dump(run: ResearchRun) -> dict[str, Any]:
    budget, metrics, search = run.budget, run.metrics, run.search.stats
    now = time.monotonic()
    return {
        "version": VERSION,
        "state": _state(run.state),
        "budget": {"searches_used": budget.searches_used, "elapsed": now - budget.started},
        "metrics": {
            **{name: getattr(metrics, name) for name in _COUNTS},
            "elapsed": now - metrics.started,
            "phases": dict(metrics.phases),
            # [input, output], the layout replicas of the version before cached tokens read
            # (they refuse any other); the cached counts apart, where they ignore them.
            "tokens": {m: [u.input_tokens, u.output_tokens] for m, u in metrics.tokens.items()},
            "cache_tokens": {
                model: [used.cached_input_tokens, used.cache_write_tokens]
                for model, used in metrics.tokens.items()
                if used.cached_input_tokens or used.cache_write_tokens
            },
        },
        "search": {
            "searches": dict(search.searches),
            "cached": dict(search.cached),
            "calls": search.calls,
            "failed_calls": search.failed_calls,
        },
    }


def restore(run: ResearchRun, parts: dict[str, Any]) -> bool:
    """Puts a checkpoint (part name -> body) back into `run`, whose state is fresh; False,
    leaving the run as it was, when the checkpoint is of another layout or does not fit."""
    body = parts.get(STATE) or {}
    if body.get("version") != VERSION:
        log.warning("checkpoint of layout %s, not %d: starting over", body.get("version"), VERSION)
        return False
    try:
        state = _read_state(run.state, body["state"], parts)
        used, counts, search = body["budget"], body["metrics"], body["search"]
        counters = {name: int(counts[name]) for name in _COUNTS}
        elapsed = float(used["elapsed"]), float(counts["elapsed"])
        searches_used = int(used["searches_used"])
        phases = {name: float(ms) for name, ms in counts["phases"].items()}
        tokens = _read_tokens(counts["tokens"], counts.get("cache_tokens", {}))
        stats = SearchStats(
            Counter(search["searches"]),
            Counter(search["cached"]),
            int(search["calls"]),
            int(search["failed_calls"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError, json_format.ParseError) as error:
        log.warning("the checkpoint does not fit this version, starting over: %r", error)
        return False
    now = time.monotonic()
    run.state = state
    run.budget.searches_used, run.budget.started = searches_used, now - elapsed[0]
    metrics = run.metrics
    for name, value in counters.items():
        setattr(metrics, name, value)
    metrics.started = now - elapsed[1]
    metrics.phases.update(phases)
    metrics.tokens.update(tokens)
    run.search.stats = stats
    state.progress.resumed = True
    return True


def _read_tokens(rows: dict[str, Any], cached: dict[str, Any]) -> dict[str, Usage]:
    """Usage per model from [input, output] rows and [cached, written] rows apart (a row of
    four, [input, output, cached, written], is how one version wrote them)."""
    tokens = {}
    for model, row in rows.items():
        if len(row) not in (2, 4):
            raise ValueError(f"a token row of {len(row)} values")
        extra = cached.get(model, row[2:] or [0, 0])
        tokens[model] = Usage(*map(int, [*row[:2], *extra]))
    return tokens


# The counters of RunMetrics (the fetch budget counts `fetch_attempts`).
_COUNTS = (
    "fetch_attempts",
    "fetches",
    "fetched_ok",
    "cached_fetches",
    "robots_blocked",
    "guard_blocked",
    "analyses",
    "analyses_failed",
)


def _state(state: ResearchState) -> dict[str, Any]:
    return {
        "objective": state.objective,
        "plan": state.plan,
        "complexity": state.complexity,
        "questions": state.questions,
        "initial_queries": state.initial_queries,
        "sources": [_source(s) for s in state.sources.values()],
        "seen_urls": sorted(state.seen_urls),
        "attempted": sorted(state.attempted),
        "url_queries": state.url_queries,
        "pending": [dataclasses.asdict(c) for c in state.pending],
        "executed_queries": state.executed_queries,
        "gap_evaluations": [_message(m) for m in state.gap_evaluations],
        "judgments": [_message(m) for m in state.judgments],
        "outline": _message(state.outline) if state.outline is not None else None,
        "iterations": state.iterations,
        "stop_note": state.stop_note,
        "fingerprints": state.fingerprints,
        "duplicates": state.duplicates,
        "progress": dataclasses.asdict(state.progress),
    }


def _read_state(fresh: ResearchState, data: dict[str, Any], parts: dict[str, Any]) -> ResearchState:
    """The saved state; the query, mode and budget are the run's own (from its request)."""
    sources = [_read_source(s, parts[page_part(s["id"])]) for s in data["sources"]]
    outline = data["outline"]
    return ResearchState(
        query=fresh.query,
        mode=fresh.mode,
        budget=fresh.budget,
        objective=data["objective"],
        plan=data["plan"],
        complexity=data["complexity"],
        questions=list(data["questions"]),
        initial_queries=list(data["initial_queries"]),
        sources={s.id: s for s in sources},
        seen_urls=set(data["seen_urls"]),
        attempted=set(data["attempted"]),
        url_queries={url: list(q) for url, q in data["url_queries"].items()},
        pending=[Candidate(**c) for c in data["pending"]],
        executed_queries=[list(batch) for batch in data["executed_queries"]],
        gap_evaluations=[_parse(re.GapEvaluation, m) for m in data["gap_evaluations"]],
        judgments=[_parse(re.Judgment, m) for m in data["judgments"]],
        outline=_parse(re.ReportOutline, outline) if outline is not None else None,
        iterations=int(data["iterations"]),
        stop_note=data["stop_note"],
        fingerprints=dict(data["fingerprints"]),
        duplicates=int(data["duplicates"]),
        progress=Progress(**data["progress"]),
    )


def _source(source: Source) -> dict[str, Any]:
    return {
        "id": source.id,  # its page is the part page_part(id)
        "candidate": dataclasses.asdict(source.candidate),
        "iteration": source.iteration,
        "analysis": dataclasses.asdict(source.analysis) if source.analysis else None,
        "aliases": sorted(source.aliases),
    }


def _read_source(data: dict[str, Any], page: dict[str, Any]) -> Source:
    analysis = data["analysis"]
    return Source(
        id=data["id"],
        page=Page.from_json(page),
        candidate=Candidate(**data["candidate"]),
        iteration=int(data["iteration"]),
        analysis=Analysis(**analysis) if analysis is not None else None,
        aliases=set(data["aliases"]),
    )


def _message(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def _parse(kind: type[Any], data: dict[str, Any]) -> Any:
    return json_format.ParseDict(data, kind())
