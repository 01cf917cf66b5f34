"""The statement check's figures: precision and recall on its corpus, and how many statements it
removes from each report of the scripted research runs the tests make.

* corpus:  tests/fixtures/statements, scored by tests/research/statement_corpus.py.
* reports: whole research runs through a real server, the scripted model writing the reports the
           tests use (tests/fixtures/scenarios over the bee site; the ferry notes' reports of
           tests/research/claims in fast, balanced and deep mode), the fixture sites and search
           APIs on 127.0.0.1. For each report: the statements removed, whether its opening
           answer is still there, and whether a note at its top says statements were removed.

Run from the repo root: `.venv/bin/python -m bench.bench_statements`. To measure the code of
another tree with this bench and these fixtures (before and after a change), put its server
package first: `PYTHONPATH=<tree>/server .venv/bin/python -m bench.bench_statements`.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import outrider.server
from outrider.server.search.corpus import CorpusIndex
from outrider.server.search.corpus_cli import index_directory
from outrider.server.settings.research import ResearchSettings
from outrider.v1 import params_pb2, run_service_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.claims import test_opening_answers as styled
from tests.research.claims import test_stated_by_sources as claims
from tests.research.claims.conftest import CLAIMS_DIR, PAGES
from tests.research.conftest import SCENARIOS, render_scenario, research_settings, title_search
from tests.research.scenarios import turn
from tests.research.statement_corpus import score
from tests.research.web import WEB_DIR, SearchBehaviour, fake_search_apis, fixture_web
from tests.support.harness import start_harness, stop_harness
from tests.support.requests import collect

BEES = "What causes honey bee colony losses?"


@dataclass(frozen=True)
class Report:
    name: str
    mode: int
    site: Path
    scenario: str | dict[str, Any]
    query: str = BEES
    opening: str = ""  # the opening answer's first words, when the report has one
    writer: str = ""  # a scenario file for the writer's own model


def reports() -> list[Report]:
    fast, balanced, deep = (
        re_pb.RESEARCH_MODE_FAST,
        re_pb.RESEARCH_MODE_BALANCED,
        re_pb.RESEARCH_MODE_DEEP,
    )
    waggle = "Bees communicate where food is: how? Start from $WEB/waggle-dance.html."
    found = [
        Report("bees: research_fast.yaml", fast, WEB_DIR, "research_fast.yaml"),
        Report("bees: research_balanced.yaml", balanced, WEB_DIR, "research_balanced.yaml"),
        Report(
            "bees: research_deep.yaml", deep, WEB_DIR, "research_deep.yaml", waggle,
            writer="research_deep_writer.yaml",
        ),
        Report("ferries: correct", fast, CLAIMS_DIR, _fast(claims.CORRECT), claims.QUERY),
        Report("ferries: injected", fast, CLAIMS_DIR, _fast(claims.INJECTED), claims.QUERY),
    ]  # fmt: skip
    correct = styled.TITLE + styled.OPENING + styled.DETAILS + styled.INJECTED
    false = correct.replace("on 4 June 1894", "in 1879")
    for name, mode in (("balanced", balanced), ("deep", deep)):
        for kind, report in (("styled, injected", correct), ("false opening, injected", false)):
            found.append(
                Report(
                    f"ferries: {kind}", mode, CLAIMS_DIR, styled.script(name, report),
                    claims.QUERY, opening="**Short answer.**",
                )
            )  # fmt: skip
    return found


def _fast(text: str) -> dict[str, Any]:
    return {"turns": [turn("planner", data=claims.PLAN), turn("writer", text=text)]}


async def removals(report: Report, tmp: Path) -> tuple[int, str, str]:
    """Statements removed from the report, whether its opening answer is still there, and
    whether a note at its top says statements were removed."""
    ferries = report.site == CLAIMS_DIR
    with fixture_web(report.site) as web:
        behaviour = SearchBehaviour(
            _both_pages(web.url) if ferries else title_search(web.url),
            keys={"brave": "brave-test-key", "tavily": "tvly-test-key"},
        )
        with fake_search_apis(behaviour) as apis:
            corpus = tmp / "corpus.sqlite3"
            index_directory(CorpusIndex(corpus), report.site, web.url, honour_robots=False)
            providers = ("searxng",) if ferries else ("corpus", "searxng")
            settings = research_settings(apis.url, corpus, providers)
            roles = {}
            if report.writer:
                writer = render_scenario(report.writer, web.url, tmp / "writer.yaml")
                roles = {"role_models": {"writer": f"scripted:{writer}"}}
            script = render_scenario(report.scenario, web.url, tmp / "scenario.yaml")
            harness = await start_harness(
                tmp / "server",
                production=True,
                model=f"scripted:{script}",
                research=ResearchSettings(**settings),
                network_allow=f"127.0.0.1:{web.port}",
                **roles,
            )
            try:
                done = await _research(harness, report.query.replace("$WEB", web.url), report.mode)
            finally:
                await stop_harness(harness)
    opening = "-" if not report.opening else ("yes" if report.opening in done.report else "no")
    noted = "yes" if "> **Note:**" in done.report.split("\n## ", 1)[0] else "no"
    return len(done.metadata.removed_statements), opening, noted


def _both_pages(web: str) -> Callable[[str], list[dict[str, str]]]:
    return lambda query: [
        {"url": f"{web}/{page}", "title": page, "snippet": "About the bay."} for page in PAGES
    ]


async def _research(harness: Any, query: str, mode: int) -> re_pb.ResearchComplete:
    params = params_pb2.ResearchParams(query=query, mode=mode)  # type: ignore[arg-type]
    events = await collect(harness.runs.Research(run_service_pb2.ResearchRequest(params=params)))
    last = events[-1].research
    assert last.WhichOneof("event") == "complete", last
    return last.complete


async def main() -> None:
    print(f"server code: {Path(outrider.server.__file__).parent}")
    print(score().summary())
    print("\n| report | mode | statements removed | opening answer kept | note at the top |")
    print("| --- | --- | --- | --- | --- |")
    modes = {v: k.removeprefix("RESEARCH_MODE_").lower() for k, v in re_pb.ResearchMode.items()}
    for report in reports():
        with tempfile.TemporaryDirectory() as tmp:
            removed, opening, noted = await removals(report, Path(tmp))
        print(f"| {report.name} | {modes[report.mode]} | {removed} | {opening} | {noted} |")


if __name__ == "__main__":
    assert SCENARIOS.is_dir()
    asyncio.run(main())
