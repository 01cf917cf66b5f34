"""A research checkpoint written by this version is read by the version before cached tokens
(replicas of both may serve one deployment while it is upgraded), and this version reads what
that one and the first version with cached tokens wrote."""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import Any, cast

from outrider.server.fetch.page import Page
from outrider.server.models.base import Usage
from outrider.server.research import checkpoint
from outrider.server.research.budget import Budget
from outrider.server.research.metrics import RunMetrics
from outrider.server.research.modes import MODES
from outrider.server.research.run import ResearchRun
from outrider.server.research.state import Candidate, ResearchState
from outrider.server.search.chain import SearchChain, SearchStats
from outrider.v1 import research_events_pb2 as re

USED = {
    "claude": Usage(1200, 300, cached_input_tokens=800, cache_write_tokens=100),
    "gpt": Usage(500, 50),
}


def a_run() -> ResearchRun:
    mode = MODES[re.RESEARCH_MODE_BALANCED]
    state = ResearchState("How do bees survive winter?", re.RESEARCH_MODE_BALANCED, mode)
    page = Page("https://example.org/1", "https://example.org/1", "Bees", "Bees cluster.", (), "")
    state.add_source(page, Candidate(page.url, re.URL_SOURCE_SEARCH_RESULT), 1)
    metrics = RunMetrics()
    none = cast(Any, None)  # the model and fetcher play no part in checkpoints
    return ResearchRun(
        emit=none,
        state=state,
        budget=Budget(mode, metrics),
        metrics=metrics,
        llm=none,
        fetcher=none,
        search=SearchChain([], None, 8),
        use_cache=True,
        fetch_timeout=10.0,
        include_full_text=False,
    )


def saved(run: ResearchRun) -> dict[str, Any]:
    """The parts as the store keeps them (JSON)."""
    parts = {checkpoint.page_part(s.id): s.page.to_json() for s in run.state.sources.values()}
    parts[checkpoint.STATE] = checkpoint.dump(run)
    return cast(dict[str, Any], json.loads(json.dumps(parts)))


def restore_before_cached_tokens(run: ResearchRun, parts: dict[str, Any]) -> bool:
    """`restore` as the version before cached tokens wrote it (commit c5ef7bb^), trimmed to
    what it reads; its metrics held [input, output] per model."""
    body = parts.get(checkpoint.STATE) or {}
    if body.get("version") != checkpoint.VERSION:
        return False
    try:
        state = checkpoint._read_state(run.state, body["state"], parts)
        used, counts, search = body["budget"], body["metrics"], body["search"]
        counters = {name: int(counts[name]) for name in checkpoint._COUNTS}
        elapsed = float(used["elapsed"]), float(counts["elapsed"])
        int(used["searches_used"])
        {name: float(ms) for name, ms in counts["phases"].items()}
        tokens = {model: [int(i), int(o)] for model, (i, o) in counts["tokens"].items()}
        SearchStats(
            Counter(search["searches"]),
            Counter(search["cached"]),
            int(search["calls"]),
            int(search["failed_calls"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return False
    run.state = state
    for name, value in counters.items():
        setattr(run.metrics, name, value)
    run.metrics.started = time.monotonic() - elapsed[1]
    run.metrics.tokens.update(cast(Any, tokens))
    return True


def test_the_version_before_cached_tokens_restores_this_versions_checkpoint() -> None:
    run = a_run()
    run.metrics.tokens.update(USED)
    run.metrics.fetches = 3
    older = a_run()
    assert restore_before_cached_tokens(older, saved(run))
    assert cast(Any, older.metrics.tokens) == {"claude": [1200, 300], "gpt": [500, 50]}
    assert older.metrics.fetches == 3 and list(older.state.sources) == ["S1"]


def test_this_version_restores_every_layout_of_token_counts() -> None:
    run = a_run()
    run.metrics.tokens.update(USED)
    parts = saved(run)
    again = a_run()
    assert checkpoint.restore(again, parts) and again.metrics.tokens == USED
    metrics = parts[checkpoint.STATE]["metrics"]
    del metrics["cache_tokens"]  # as the version before cached tokens wrote it
    assert checkpoint.restore(older := a_run(), parts)
    assert older.metrics.tokens == {"claude": Usage(1200, 300), "gpt": Usage(500, 50)}
    metrics["tokens"]["claude"] = [1200, 300, 800, 100]  # the first version with cached tokens
    assert checkpoint.restore(mixed := a_run(), parts) and mixed.metrics.tokens == USED
    metrics["tokens"]["claude"] = [1200, 300, 800]
    assert not checkpoint.restore(a_run(), parts)  # no layout: the run starts over
