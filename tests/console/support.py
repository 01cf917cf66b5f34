"""A real server (both edges, the production agents on scripted models, the fixture sites and
web) with the console, keys for two tenants, and Debian's Chromium driven by Playwright as a
person would drive it. One per test module."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import yaml
from playwright.async_api import Browser, BrowserContext, Page, async_playwright

from outrider.server.agents import production_agents
from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.grpc_edge.server import OutriderServer
from outrider.server.rest_port import rest_server
from outrider.server.search.corpus import CorpusIndex
from outrider.server.search.corpus_cli import index_directory
from outrider.server.settings import Settings
from outrider.server.settings.browser import BrowserSettings
from outrider.server.settings.research import ResearchSettings
from outrider.server.settings.webhooks import WebhookSettings
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import interaction_service_pb2_grpc, params_pb2, run_service_pb2_grpc
from outrider.v1 import run_service_pb2 as rs
from tests.research.web import WEB_DIR, fixture_web
from tests.security.tenants import CALLER, Keys
from tests.support.harness import REPO_ROOT, settings_for_tests
from tests.support.sites import fixture_sites

SCENARIOS = REPO_ROOT / "tests" / "fixtures" / "scenarios"
SHOTS = REPO_ROOT / "tests" / "artifacts" / "console"  # git-ignored: every console page
CHROMIUM = "/usr/bin/chromium"
DESKTOP = {"width": 1280, "height": 900}


class LogLines(logging.Handler):
    """Every log line the server writes while the module runs (DEBUG and up)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@dataclass
class Console:
    origin: str
    keys: Keys
    sites: str
    web: str
    folder: Path
    browser: Browser
    runs: run_service_pb2_grpc.RunServiceStub
    interactions: interaction_service_pb2_grpc.InteractionServiceStub
    server: OutriderServer
    logs: LogLines

    @property
    def base(self) -> str:
        return f"{self.origin}/console"

    def model(self, scenario: str) -> str:
        """A scripted model replaying `scenario` (under fixtures/scenarios), $WEB replaced."""
        text = (SCENARIOS / scenario).read_text().replace("$WEB", self.web)
        data = yaml.safe_load(text)
        path = self.folder / f"{scenario.replace('/', '_')}.{time.monotonic_ns()}.yaml"
        data["transcript"] = str(path.with_suffix(".jsonl"))
        path.write_text(yaml.safe_dump(data))
        return f"scripted:{path}"

    async def browser_run(self, principal: str, scenario: str, page: str, **params: Any) -> str:
        automate = params_pb2.AutomateParams(url=f"{self.sites}/{page}", **params)
        request = rs.CreateRunRequest(
            automate=automate, options=params_pb2.RunOptions(model=self.model(scenario))
        )
        return await self._create(principal, request)

    async def research_run(self, principal: str, scenario: str, query: str) -> str:
        request = rs.CreateRunRequest(
            research=params_pb2.ResearchParams(query=query),
            options=params_pb2.RunOptions(model=self.model(scenario)),
        )
        return await self._create(principal, request)

    async def _create(self, principal: str, request: rs.CreateRunRequest) -> str:
        response = await self.runs.CreateRun(request, metadata=self.keys.bearer(principal))
        return str(response.run.name.removeprefix("runs/"))

    async def question(self, principal: str, run_id: str, within: float = 60) -> ip.Interaction:
        """The run's first pending interaction, once it has one (with its answer link)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            listed = await self.interactions.ListInteractions(
                isv.ListInteractionsRequest(run=f"runs/{run_id}"),
                metadata=self.keys.bearer(principal),
            )
            if listed.interactions:
                return listed.interactions[0]
            await asyncio.sleep(0.2)
        raise AssertionError(f"run {run_id} asked nothing within {within} s")

    async def ended(self, principal: str, run_id: str, within: float = 60) -> Any:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            run = (
                await self.runs.GetRun(
                    rs.GetRunRequest(name=f"runs/{run_id}"), metadata=self.keys.bearer(principal)
                )
            ).run
            if run.HasField("end_time"):
                return run
            await asyncio.sleep(0.2)
        raise AssertionError(f"run {run_id} did not end within {within} s")

    async def context(self, **options: Any) -> BrowserContext:
        return await self.browser.new_context(**({"viewport": DESKTOP} | options))

    async def signed_in(self, principal: str, **options: Any) -> Page:
        """A fresh browser profile signed in with the principal's key, on the runs page."""
        context = await self.context(**options)
        page = await context.new_page()
        await page.goto(f"{self.base}/")
        await page.get_by_label("API key").fill(self.keys.keys[principal])
        await page.get_by_role("button", name="Sign in").click()
        await page.wait_for_url(f"{self.base}/")
        return page


def two_tenants(folder: Path) -> Keys:
    keys = Keys(folder / "keys.toml")
    keys.add("alice", "alpha", CALLER)  # an on-call engineer of tenant alpha
    keys.add("carol", "alpha", CALLER)  # her colleague: runs by someone else of the tenant
    keys.add("reader", "alpha", ["runs.read"])  # may watch, may not answer or cancel
    keys.add("bob", "beta", CALLER)  # another tenant
    keys.add("dana", "delta", CALLER)  # the runs page tests: a tenant of their own
    return keys


@asynccontextmanager
async def console_server(folder: Path, **overrides: Any) -> AsyncIterator[Console]:
    """The module's server; `overrides` change its settings (a default model, its capacity)."""
    async with AsyncExitStack() as stack:
        sites = stack.enter_context(fixture_sites())
        web = stack.enter_context(fixture_web())
        keys = two_tenants(folder)
        settings = console_settings(folder, keys, sites, web.url, web.port, **overrides)
        server, origin = await serve(stack, settings)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
        stack.push_async_callback(channel.close)
        yield Console(
            origin,
            keys,
            sites,
            web.url,
            folder,
            await chromium(stack),
            run_service_pb2_grpc.RunServiceStub(channel),
            interaction_service_pb2_grpc.InteractionServiceStub(channel),
            server,
            capture_logs(stack),
        )


def console_settings(
    folder: Path, keys: Keys, sites: str, web: str, web_port: int, **overrides: Any
) -> Settings:
    """Both edges on free ports, the fixture sites and web allowed, questions kept 10 minutes."""
    corpus = folder / "corpus.sqlite3"
    index_directory(CorpusIndex(corpus), WEB_DIR, web, honour_robots=False)
    return settings_for_tests(
        folder / "data",
        **overrides,
        rest_port=0,
        keys_file=keys.file,
        interaction_ttl=600.0,
        network_allow=f"127.0.0.1:{sites.rsplit(':', 1)[1]},127.0.0.1:{web_port}",
        webhooks=WebhookSettings(allow=("127.0.0.1/32",)),  # the webhook page's receivers
        browser=BrowserSettings(),
        research=ResearchSettings(
            search_providers=("corpus",),
            corpus_index=corpus,
            js_fallback=False,
            per_host_delay=0.0,
            per_host_concurrency=8,
        ),
    )


async def serve(stack: AsyncExitStack, settings: Settings) -> tuple[OutriderServer, str]:
    """The server with the production agents and its HTTP port: (server, HTTP origin)."""
    server = OutriderServer(settings, production_agents(settings))
    await server.start()
    stack.push_async_callback(server.stop)
    rest = rest_server(settings, server.runs, server.keyring, server.sessions)
    await rest.start()
    stack.push_async_callback(rest.stop)
    return server, f"http://127.0.0.1:{rest.port}"


async def chromium(stack: AsyncExitStack) -> Browser:
    playwright = await stack.enter_async_context(async_playwright())
    browser = await playwright.chromium.launch(
        executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS), headless=True
    )
    stack.push_async_callback(browser.close)
    return browser


def capture_logs(stack: AsyncExitStack) -> LogLines:
    """Every log line from now until the stack closes, DEBUG and up."""
    logs = LogLines()
    root = logging.getLogger()
    previous = root.level
    root.setLevel(logging.DEBUG)
    root.addHandler(logs)
    stack.callback(root.setLevel, previous)
    stack.callback(root.removeHandler, logs)
    return logs


def where(console: Console, run_id: str) -> str:
    """The URL of the run's current tab, as its live view shows it ("" without one)."""
    control = console.server.runs.browsers.of(run_id)
    return control.live.where() if control is not None and control.live is not None else ""


async def shot(page: Page, name: str, full_page: bool = True) -> Path:
    """Saves what the person sees now as tests/artifacts/console/<name>.png: the whole page, or
    (`full_page=False`) the window's first screenful."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=full_page)
    return path


async def part_shot(page: Page, selector: str, name: str) -> None:
    """One part of the page as tests/artifacts/console/<name>.png (for docs/console.md)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.locator(selector).screenshot(path=str(SHOTS / f"{name}.png"))


def assert_secret_nowhere(console: Console, secret: str) -> None:
    """No log line, stored byte (database, artifacts) or model prompt holds `secret`; the
    prompts show what was typed as redacted."""
    console.server.store.flush()
    assert not any(secret in line for line in console.logs.lines), "a log line"
    for path in console.folder.rglob("*"):
        if path.is_file() and path.suffix != ".yaml":
            assert secret.encode() not in path.read_bytes(), path  # store, artifacts, prompts
    transcripts = list(console.folder.glob("*.jsonl"))
    assert transcripts and any("[redacted]" in t.read_text() for t in transcripts)


AXE = REPO_ROOT / "node_modules" / "axe-core" / "axe.min.js"


async def accessibility_problems(page: Page) -> list[str]:
    """Serious and critical axe-core violations of the page as it is now (axe is evaluated
    through DevTools, which the page's CSP does not govern)."""
    if not await page.evaluate("typeof window.axe !== 'undefined'"):
        await page.evaluate(AXE.read_text())
    found = await page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => ['serious', 'critical'].includes(v.impact))"
        ".map(v => v.id + ': ' + v.help + ' @ ' + v.nodes.map(n => n.target.join(' ')).join(', '))"
    )
    return list(found)
