"""Research agent figures: fetching and extraction throughput, and end-to-end run wall time.

* fetch:   pages fetched and extracted per second from the fixture web (31 public pages: HTML,
           one PDF, one text file), at fetch concurrency 1, 8 and 32; per-host politeness off
           (per-host concurrency = concurrency, no delay), cache off. The web is Python's
           http.server in its own process on 127.0.0.1, so its speed bounds the figures.
* extract: trafilatura main-text extraction alone, per HTML page (p50, p95), in process.
* runs:    wall time of whole fast and balanced research runs through the real gRPC server
           with the scripted model (no model time): the harness's own overhead. nocache=True.

Run from the repo root: `.venv/bin/python -m bench.bench_research [--rounds N] [--runs N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import grpc

from bench.research_web import WEB_DIR, fixture_urls, render, web_server
from outrider.server.fetch.extract import extract_html
from outrider.server.fetch.fetcher import Fetcher
from outrider.server.grpc_edge.server import OutriderServer
from outrider.server.net.guard import NetworkGuard
from outrider.server.research.agent import ResearchAgent
from outrider.server.search.corpus import CorpusIndex
from outrider.server.search.corpus_cli import index_directory
from outrider.server.settings import Settings
from outrider.server.settings.research import ResearchSettings
from outrider.v1 import params_pb2, run_pb2, run_service_pb2, run_service_pb2_grpc
from outrider.v1 import research_events_pb2 as re_pb

CONCURRENCY = (1, 8, 32)


async def fetch_rate(base: str, concurrency: int, rounds: int) -> float:
    """Pages per second over `rounds` passes of every fixture page."""
    settings = ResearchSettings(
        fetch_concurrency=concurrency,
        per_host_concurrency=concurrency,
        per_host_delay=0.0,
        js_fallback=False,
    )
    port = base.rsplit(":", 1)[1]
    urls = fixture_urls(base) * rounds
    async with Fetcher(settings, NetworkGuard([f"127.0.0.1:{port}"]), None, Path()) as fetcher:
        await fetcher.fetch(urls[0], 10)  # robots.txt and the connection, outside the timing
        began = time.perf_counter()
        outcomes = await asyncio.gather(*(fetcher.fetch(url, 30, False) for url in urls))
        elapsed = time.perf_counter() - began
    failed = [o for o in outcomes if o.page is None]
    assert not failed, failed[0]
    return len(urls) / elapsed


def extraction_times(rounds: int) -> list[float]:
    """Milliseconds per HTML page, every page `rounds` times."""
    pages = [(p.read_text(), p.as_uri()) for p in sorted(WEB_DIR.rglob("*.html"))]
    extract_html(*pages[0])  # trafilatura's first call loads its resources
    times = []
    for _ in range(rounds):
        for html, url in pages:
            began = time.perf_counter()
            extract_html(html, url)
            times.append((time.perf_counter() - began) * 1000)
    return times


async def run_times(base: str, data_dir: Path, mode: int, scenario: str, runs: int) -> list[float]:
    """Seconds per research run, from the Research call to its `complete` event."""
    corpus = data_dir / "corpus.sqlite3"
    index_directory(CorpusIndex(corpus), WEB_DIR, base)
    script = render(scenario, base, data_dir / scenario)
    settings = Settings(
        data_dir=data_dir,
        port=0,
        model=f"scripted:{script}",
        network_allow=(f"127.0.0.1:{base.rsplit(':', 1)[1]}",),
        log_level="WARNING",
        research=ResearchSettings(corpus_index=corpus, per_host_delay=0.0, js_fallback=False),
    )
    server = OutriderServer(settings, {run_pb2.RUN_KIND_RESEARCH: ResearchAgent(settings)})
    port = await server.start()
    times = []
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = run_service_pb2_grpc.RunServiceStub(channel)
            for _ in range(runs):
                times.append(await _one_run(stub, mode))
    finally:
        await server.stop()
    return times


async def _one_run(stub: run_service_pb2_grpc.RunServiceStub, mode: int) -> float:
    params = params_pb2.ResearchParams(
        query="What causes honey bee colony losses?",
        mode=mode,
        nocache=True,  # type: ignore[arg-type]
    )
    began = time.perf_counter()
    names = []
    async for response in stub.Research(run_service_pb2.ResearchRequest(params=params)):
        if response.HasField("event"):
            names.append(response.event.research.WhichOneof("event"))
    assert names[-1] == "complete", names
    return time.perf_counter() - began


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def main(rounds: int, runs: int) -> None:
    with web_server() as base, tempfile.TemporaryDirectory() as tmp:
        print(f"fetch + extract, {len(fixture_urls(base))} pages x {rounds} rounds, no cache:")
        print("| concurrency | pages/s (median of 3) | min | max |\n| --- | --- | --- | --- |")
        for concurrency in CONCURRENCY:
            rates = [await fetch_rate(base, concurrency, rounds) for _ in range(3)]
            print(
                f"| {concurrency} | {statistics.median(rates):.0f} | {min(rates):.0f} | "
                f"{max(rates):.0f} |"
            )
        times = extraction_times(rounds)
        print(
            f"\nextraction per HTML page ({len(times)} samples): "
            f"p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 0.95):.1f} ms"
        )
        print(f"\nend-to-end run wall time, scripted model, median of {runs}:")
        print("| mode | median s | min s | max s |\n| --- | --- | --- | --- |")
        cases = [
            ("fast", re_pb.RESEARCH_MODE_FAST, "research_fast.yaml"),
            ("balanced", re_pb.RESEARCH_MODE_BALANCED, "research_balanced.yaml"),
        ]
        for name, mode, scenario in cases:
            found = await run_times(base, Path(tmp) / name, mode, scenario, runs)
            print(
                f"| {name} | {statistics.median(found):.2f} | {min(found):.2f} | {max(found):.2f} |"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=10, help="passes over the fixture pages")
    parser.add_argument("--runs", type=int, default=5, help="research runs per mode")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.runs))
