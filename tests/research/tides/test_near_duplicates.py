"""Issue 11, item 10: a page, its printable copy (canonical link) and a mirror that only
JavaScript fills (same text, rendered in Chromium) are one source, offered to the writer once;
PDFs without a title are named by their first heading or file name."""

from __future__ import annotations

import json
from pathlib import Path

from outrider.server.fetch.fetcher import Fetcher
from outrider.server.net.guard import NetworkGuard
from outrider.server.settings import Settings
from outrider.server.settings.research import ResearchSettings
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import ResearchCaseFactory
from tests.research.events import complete, payloads
from tests.research.scenarios import turn
from tests.research.tides.conftest import results
from tests.research.web import SearchBehaviour, Server

ARTICLE = "the spring tide range reaches 6.4 metres"
PLAN = {
    "objective": "Explain the tides at Harbour Point.",
    "plan": "Search the almanac.",
    "complexity": "simple",
    "questions": ["How high do tides rise at Harbour Point?"],
    "queries": ["harbour point tides"],
}


def writer(web: str) -> str:
    return (
        f"Spring tides at Harbour Point reach 6.4 metres [S1]. A printable copy is at "
        f"{web}/tides-print.html. High water on 1 June falls at 04:12 [S2]. The board had the "
        "channel dredged in 1958 [S3]."
    )


async def test_a_page_its_printable_copy_and_a_mirror_become_one_source(
    research_case: ResearchCaseFactory, search_behaviour: SearchBehaviour, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    script = {
        "transcript": str(transcript),
        "turns": [turn("planner", data=PLAN), turn("writer", text=writer("$WEB"))],
    }
    case = await research_case(script, providers=("searxng",), js_fallback=True)
    web = case.web.url
    search_behaviour.results = lambda query: results(
        web,
        "tides-print.html",
        "tides.html",
        "mirror/tides.html",
        "reports/tide-tables.pdf",
        "reports/scan-0042.pdf",
    )
    events = await case.research(
        "How high do tides rise at Harbour Point?", re_pb.RESEARCH_MODE_FAST
    )
    paths = case.web.traffic.paths()
    assert paths.count("/mirror/tides.html") == 2  # read, then rendered in Chromium
    assert {"/tides-print.html", "/tides.html"} <= set(paths)
    analysed = payloads(events, "analyzing_end")[0]
    assert (analysed.analyzed, analysed.failed) == (3, 0)
    assert "2 dropped as copies of pages already read" in analysed.message
    assert [s.url for s in analysed.samples] == [
        f"{web}/tides.html",  # the canonical copy replaced the printable one read first
        f"{web}/reports/tide-tables.pdf",
        f"{web}/reports/scan-0042.pdf",
    ]
    asked = [json.loads(line) for line in transcript.read_text().splitlines()]
    to_writer = json.dumps(asked[-1])
    assert to_writer.count(ARTICLE) == 1 and to_writer.count("</external_content>") == 3
    done = complete(events)
    assert list(done.metadata.removed_citations) == []  # the print copy's URL cites S1
    body, _, listing = done.report.partition("## Sources")
    assert "A printable copy is at [S1]." in body
    assert listing.strip().splitlines() == [
        f"- [S1] How tides work — <{web}/tides.html>",
        f"- [S2] Tide tables for Harbour Point — <{web}/reports/tide-tables.pdf>",
        f"- [S3] scan-0042.pdf — <{web}/reports/scan-0042.pdf>",
    ]
    titles = [p.title for p in done.metadata.cited_pages]
    assert titles == ["How tides work", "Tide tables for Harbour Point", "scan-0042.pdf"]


async def test_a_pdf_names_its_canonical_copy_in_a_link_header(web: Server) -> None:
    guard = NetworkGuard([f"127.0.0.1:{web.port}"])
    settings = ResearchSettings(per_host_delay=0.0, js_fallback=False)
    async with Fetcher(settings, guard, None, Settings().chromium_path) as fetcher:
        outcome = await fetcher.fetch(f"{web.url}/linked/reports/scan-0042.pdf", 10)
    assert outcome.page is not None
    assert outcome.page.canonical == f"{web.url}/reports/scan-0042.pdf"
    assert outcome.page.title == "scan-0042.pdf"
