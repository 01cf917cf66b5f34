"""One production server process (python -m outrider.server), configured only by environment
variables, runs a browser task over gRPC and a research task over REST/SSE, each continuing a
caller's W3C trace. The tests then read what it exported (OTLP), served (/metrics) and logged."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from outrider.server.search.corpus import CorpusIndex
from outrider.server.search.corpus_cli import index_directory
from outrider.v1 import params_pb2, run_event_pb2, run_service_pb2, run_service_pb2_grpc
from tests.research.conftest import render_scenario
from tests.research.web import WEB_DIR, fixture_web
from tests.rest.support import Sse, sse_events
from tests.support.harness import REPO_ROOT
from tests.support.requests import collect
from tests.support.sites import fixture_sites
from tests.telemetry.otlp import ReceivedSpan, otlp_receiver
from tests.telemetry.server import ProductionServer

SCENARIOS = REPO_ROOT / "tests" / "fixtures" / "scenarios"
# The callers' own traces: W3C traceparent = version-trace id-parent span id-flags.
BROWSER_TRACE, BROWSER_PARENT = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
RESEARCH_TRACE, RESEARCH_PARENT = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
KEY = "telemetry-test-key"
AUTH = {"authorization": f"Bearer {KEY}"}
PRICE = {"input": 2.0, "output": 10.0}  # US dollars per million tokens


def traceparent(trace_id: str, parent: str) -> str:
    return f"00-{trace_id}-{parent}-01"


@dataclass
class Samples:
    """A scrape of /metrics: (name, labels) -> value."""

    values: dict[tuple[str, frozenset[tuple[str, str]]], float]

    def get(self, name: str, **labels: str) -> float:
        return self.values.get((name, frozenset(labels.items())), 0.0)

    def total(self, name: str, **labels: str) -> float:
        """Sum over every series of `name` whose labels include `labels`."""
        wanted = set(labels.items())
        return sum(v for (n, ls), v in self.values.items() if n == name and wanted <= ls)


@dataclass
class Observed:
    spans: list[ReceivedSpan]
    metrics: Samples
    metrics_text: str
    log_lines: list[str]
    browser_events: list[run_event_pb2.RunEvent]
    research_events: list[Sse]
    browser_scenario: dict[str, Any]
    research_scenario: dict[str, Any]
    exit_code: int

    def named(self, name: str) -> list[ReceivedSpan]:
        return [s for s in self.spans if s.name == name]

    def children(self, parent: ReceivedSpan) -> list[ReceivedSpan]:
        found = [s for s in self.spans if s.parent_id == parent.span_id]
        return sorted(found, key=lambda s: s.start)

    def descendants(self, parent: ReceivedSpan) -> list[ReceivedSpan]:
        found = []
        for child in self.children(parent):
            found += [child, *self.descendants(child)]
        return found


def parse_samples(text: str) -> Samples:
    values = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            values[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return Samples(values)


async def scrape_own_port(http: httpx.AsyncClient, port: int, within: float = 10.0) -> Samples:
    """The metrics port's scrape, once it counts the keyed scrape (or after `within` seconds)."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        response = await http.get(f"http://127.0.0.1:{port}/metrics")
        response.raise_for_status()
        own = parse_samples(response.text)
        counted = own.get(
            "outrider_http_requests_total", method="GET", route="/metrics", status="200"
        )
        if counted or asyncio.get_running_loop().time() > deadline:
            return own
        await asyncio.sleep(0.05)


async def drive(
    server: ProductionServer, browser_model: str, research_model: str, sites: str
) -> tuple[list[run_event_pb2.RunEvent], list[Sse], str]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}") as channel:
        request = run_service_pb2.AutomateRequest(
            params=params_pb2.AutomateParams(
                task="What does the Red Mug cost, and what does the login page say?",
                url=f"{sites}/shop/index.html",
            ),
            options=params_pb2.RunOptions(model=browser_model),
        )
        metadata = (*AUTH.items(), ("traceparent", traceparent(BROWSER_TRACE, BROWSER_PARENT)))
        browser = await collect(
            run_service_pb2_grpc.RunServiceStub(channel).Automate(request, metadata=metadata)
        )
    origin = f"http://127.0.0.1:{server.rest_port}"
    async with httpx.AsyncClient(base_url=origin, timeout=90) as http:
        body = {
            "query": "Why do honey bee colonies die?",
            "mode": "fast",
            "options": {"model": research_model},
        }
        headers = AUTH | {"traceparent": traceparent(RESEARCH_TRACE, RESEARCH_PARENT)}
        async with http.stream("POST", "/v1/research", json=body, headers=headers) as response:
            research = [block async for block in sse_events(response)]
        scrape = await http.get("/metrics", headers=AUTH)
        scrape.raise_for_status()
        # the same registry on the metrics port, which needs no key; the keyed scrape is counted
        # once its response is out, which the metrics port (another thread) may answer before
        own = await scrape_own_port(http, server.metrics_port)
    keyed = parse_samples(scrape.text)
    assert (
        own.get("outrider_http_requests_total", method="GET", route="/metrics", status="200") == 1
    )
    assert (
        own.total("outrider_runs_started_total") == keyed.total("outrider_runs_started_total") == 2
    )
    return browser, research, scrape.text


@pytest.fixture(scope="package")
def observed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Observed]:
    tmp = tmp_path_factory.mktemp("observed")
    with fixture_sites() as sites, fixture_web() as web, otlp_receiver() as receiver:
        browser_scenario = yaml.safe_load(
            (SCENARIOS / "browser" / "shop_navigation.yaml").read_text()
        )
        # a provider that served part of a prompt from its cache (GenAI cache attributes)
        browser_scenario["turns"][1]["reply"]["usage"] |= {"cached_input_tokens": 256}
        (tmp / "shop.yaml").write_text(yaml.safe_dump(browser_scenario))
        research_path = render_scenario("research_fast.yaml", web.url, tmp / "research.yaml")
        corpus = tmp / "corpus.sqlite3"
        # Keeps the pages robots.txt disallows (as a web search would find them), so that some
        # fetches are refused at fetch time and their spans say so.
        index_directory(CorpusIndex(corpus), WEB_DIR, web.url, honour_robots=False)
        env = {
            "OUTRIDER_LOG_FORMAT": "json",
            "OUTRIDER_API_KEYS": KEY,
            "OUTRIDER_METRICS_PORT": "0",
            "OUTRIDER_NETWORK_ALLOW": f"127.0.0.1:{sites.rsplit(':', 1)[1]},127.0.0.1:{web.port}",
            "OUTRIDER_PROVIDER_PRICES": json.dumps({"scripted:shop": PRICE}),
            "OUTRIDER_RESEARCH_SEARCH_PROVIDERS": "corpus",
            "OUTRIDER_RESEARCH_CORPUS_INDEX": str(corpus),
            "OUTRIDER_RESEARCH_JS_FALLBACK": "false",
            "OUTRIDER_RESEARCH_PER_HOST_DELAY": "0",
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
            "OTEL_SERVICE_NAME": "outrider-under-test",
            "OTEL_BSP_SCHEDULE_DELAY": "200",
        }
        server = ProductionServer(tmp / "data", env)
        try:
            server.wait_ready()
            browser, research, text = asyncio.run(
                drive(server, f"scripted:{tmp / 'shop.yaml'}", f"scripted:{research_path}", sites)
            )
            code = server.stop()
        finally:
            server.close()
        yield Observed(
            spans=receiver.snapshot(),
            metrics=parse_samples(text),
            metrics_text=text,
            log_lines=server.log_path.read_text().splitlines(),
            browser_events=browser,
            research_events=research,
            browser_scenario=browser_scenario,
            research_scenario=yaml.safe_load(research_path.read_text()),
            exit_code=code,
        )
