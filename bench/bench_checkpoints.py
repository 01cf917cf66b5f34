"""What a research checkpoint costs at a phase boundary, with each page saved once (as the agent
does) against every page rewritten at every boundary (the first version).

Builds the state of a large research run (PAGES sources of KB kilobytes of text and 50 links
each, as an ultra-mode run may hold), on a PostgreSQL store in a private cluster (as the tests
start it), owned by the store like a run it executes. Each round saves one boundary both ways,
interleaved: `on loop` is the time the save takes on the event loop (building the parts and
serialising them to JSON), `committed` the time until the write-behind thread committed them,
`bytes` what was sent. The first save of the "once" way writes every page; later ones only
the state.

Run from the repo root: `.venv/bin/python -m bench.bench_checkpoints [pages] [kb] [rounds]`.
"""

from __future__ import annotations

import random
import statistics
import string
import sys
import time
from typing import Any, cast

from outrider.server.core.runs.checkpoints import Checkpoints
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.storage.postgres.store import PostgresStore
from outrider.server.fetch.extract import Link
from outrider.server.fetch.page import Page
from outrider.server.research.budget import Budget
from outrider.server.research.checkpoint import Saver
from outrider.server.research.metrics import RunMetrics
from outrider.server.research.modes import MODES
from outrider.server.research.run import ResearchRun
from outrider.server.research.state import Analysis, Candidate, ResearchState
from outrider.server.search.chain import SearchChain
from outrider.v1 import research_events_pb2 as re
from outrider.v1 import run_pb2
from tests.support.postgres import PostgresServer


class CountingStore(PostgresStore):
    """The PostgreSQL store, counting the checkpoint bytes it is handed."""

    sent = 0

    def save_checkpoint(self, run_id: str, part: str, body: str) -> None:
        self.sent += len(body)
        super().save_checkpoint(run_id, part, body)


def big_run(pages: int, kb: int) -> ResearchRun:
    mode = MODES[re.RESEARCH_MODE_ULTRA]
    words = [
        "".join(random.choices(string.ascii_lowercase, k=random.randint(2, 9))) for _ in range(5000)
    ]
    state = ResearchState("How do bees survive winter?", re.RESEARCH_MODE_ULTRA, mode)
    for n in range(pages):
        url = f"https://example.org/{n}"
        text = " ".join(random.choices(words, k=kb * 1024 // 6))
        links = tuple(Link(f"{url}/{i}", f"link {i}") for i in range(50))
        page = Page(url, url, f"Page {n}", text, links, "text/html")
        source = state.add_source(page, Candidate(url, re.URL_SOURCE_SEARCH_RESULT), 1)
        source.analysis = Analysis(re.LEVEL_HIGH, re.LEVEL_MEDIUM, "A summary.", [])
        state.seen_urls.add(url)
        state.attempted.add(url)
    metrics = RunMetrics()
    none = cast(Any, None)  # the model and fetcher play no part in saving
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


def one_save(saver: Saver, store: CountingStore) -> tuple[float, float, int]:
    before = store.sent
    began = time.perf_counter()
    saver()
    on_loop = time.perf_counter() - began
    store.flush()
    return on_loop * 1000, (time.perf_counter() - began) * 1000, store.sent - before


def main() -> None:
    pages = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    kb = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    postgres = PostgresServer()
    store = CountingStore(postgres.create_database())
    try:
        run = big_run(pages, kb)
        results: dict[str, list[tuple[float, float, int]]] = {"every page": [], "once": []}
        savers = {}
        for way in results:
            store.save_run(run_pb2.Run(name=f"runs/{way}", state=run_pb2.RUN_STATE_RUNNING), way)
            checkpoints = Checkpoints(store, way, Redactor(), resumed=False, wanted=True)
            savers[way] = Saver(run, checkpoints)
        first = one_save(savers["once"], store)
        for _ in range(rounds):
            for way, saver in savers.items():
                if way == "every page":  # as the first version did: no page counts as saved
                    saver._saved = {}
                results[way].append(one_save(saver, store))
        print(f"{pages} pages of {kb} KB, {rounds} boundaries each way")
        print(f"{'way':<22} {'on loop ms':>11} {'committed ms':>13} {'bytes':>11}")
        print(f"{'once: first save':<22} {first[0]:>11.1f} {first[1]:>13.1f} {first[2]:>11,}")
        for way, rows in results.items():
            loop, committed, sent = (
                statistics.median(column) for column in zip(*rows, strict=True)
            )
            print(f"{way + ' (median)':<22} {loop:>11.1f} {committed:>13.1f} {int(sent):>11,}")
    finally:
        store.close()
        postgres.close()


if __name__ == "__main__":
    main()
