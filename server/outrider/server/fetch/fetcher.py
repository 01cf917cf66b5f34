"""The research fetcher: async httpx behind the network guard, robots.txt, per-host politeness,
bounded concurrency, size caps, a response cache, extraction, and the JavaScript fallback."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import TracebackType
from urllib.parse import urldefrag, urljoin, urlsplit

import httpx
from playwright.async_api import Error as PlaywrightError

from outrider.server.fetch.cache import SqliteCache
from outrider.server.fetch.extract import Extracted, extract_html, extract_pdf, extract_text
from outrider.server.fetch.hosts import HostGate
from outrider.server.fetch.page import FetchOutcome, Page
from outrider.server.fetch.render import Renderer
from outrider.server.fetch.robots import (
    MAX_ROBOTS_BYTES,
    RobotsRules,
    agent_token,
    robots_url,
    rules_from_response,
)
from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import BlockedDestination, NetworkGuard
from outrider.server.net.transport import GuardedTransport
from outrider.server.settings.research import ResearchSettings
from outrider.server.telemetry import metrics, tracing

MAX_REDIRECTS = 5


class FetchFailed(Exception):
    """The page could not be turned into text; the message says why."""


class Fetcher:
    """Use as `async with Fetcher(...) as fetcher:`; closing stops its client and browser."""

    def __init__(
        self,
        settings: ResearchSettings,
        guard: NetworkGuard,
        cache: SqliteCache | None,
        chromium_path: Path,
        domains: DomainPolicy | None = None,
    ) -> None:
        self._settings = settings
        self._agent = agent_token(settings.user_agent)
        self._cache = cache
        self._client = httpx.AsyncClient(
            transport=GuardedTransport(guard, domains),
            headers={"User-Agent": settings.user_agent},
            timeout=None,  # one asyncio limit per request instead
        )
        self._gate = HostGate(settings.per_host_concurrency, settings.per_host_delay)
        self._slots = asyncio.Semaphore(settings.fetch_concurrency)
        self._robots: dict[str, RobotsRules] = {}
        self._robot_locks: dict[str, asyncio.Lock] = {}
        self._renderer = (
            Renderer(chromium_path, guard, domains or DomainPolicy(), settings.user_agent)
            if settings.js_fallback
            else None
        )

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()
        if self._renderer is not None:
            await self._renderer.aclose()

    async def fetch(self, url: str, limit: float, use_cache: bool = True) -> FetchOutcome:
        """The page at `url` (from the cache when allowed), observed as a span and metrics."""
        started = time.perf_counter()
        with tracing.span("fetch", {"url.full": url}) as span:
            outcome = await self._fetch(url, limit, use_cache)
            label = _outcome_label(outcome)
            span.set_attributes(
                {"outrider.fetch.outcome": label, "outrider.fetch.cached": outcome.cached}
            )
        metrics.fetched(label, time.perf_counter() - started)
        return outcome

    async def _fetch(self, url: str, limit: float, use_cache: bool) -> FetchOutcome:
        url = urldefrag(url).url
        if use_cache and self._cache is not None:
            hit = self._cache.get(url)
            if hit is not None:
                return FetchOutcome(url, Page.from_json(hit), cached=True)
        async with self._slots:
            outcome = await self._fetch_guarded(url, limit)
        if outcome.page is not None and self._cache is not None:
            self._cache.put(url, outcome.page.to_json())
        return outcome

    async def _fetch_guarded(self, url: str, limit: float) -> FetchOutcome:
        try:
            return await self._fetch_live(url, limit)
        except BlockedDestination as error:
            return FetchOutcome(url, guard_blocked=True, error=error.message)
        except TimeoutError:
            return FetchOutcome(url, error=f"timed out after {limit:g}s")
        except (httpx.HTTPError, FetchFailed) as error:
            return FetchOutcome(url, error=str(error) or type(error).__name__)

    async def _fetch_live(self, url: str, limit: float) -> FetchOutcome:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            rules = await self._rules(current, limit)
            if not rules.allows(current, self._agent):
                return FetchOutcome(url, robots_blocked=True, error="disallowed by robots.txt")
            host = urlsplit(current).netloc
            async with self._gate.slot(host, rules.crawl_delay(self._agent)):
                async with asyncio.timeout(limit):
                    response, body, truncated = await self._get(current)
            if response.is_redirect and "location" in response.headers:
                current = urldefrag(urljoin(current, response.headers["location"])).url
                continue
            if response.status_code >= 400:
                raise FetchFailed(f"HTTP {response.status_code}")
            page = await self._to_page(url, current, response, (body, truncated), limit)
            return FetchOutcome(url, page)
        raise FetchFailed(f"more than {MAX_REDIRECTS} redirects")

    async def _get(self, url: str) -> tuple[httpx.Response, bytes, bool]:
        cap = self._settings.max_page_bytes
        async with self._client.stream("GET", url) as response:
            declared = response.headers.get("content-length", "")
            textual = response.headers.get("content-type", "").startswith("text/")
            if declared.isdigit() and int(declared) > cap and not textual:  # cut text, not PDFs
                raise FetchFailed(f"{declared} bytes is over the {cap}-byte size cap")
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > cap:  # keep what fits; HTML extraction copes, PDFs are refused
                    return response, b"".join(chunks)[:cap], True
            return response, b"".join(chunks), False

    async def _to_page(
        self,
        url: str,
        final: str,
        response: httpx.Response,
        body: tuple[bytes, bool],
        limit: float,
    ) -> Page:
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        extracted, rendered = await self._extract(final, kind, response, body, limit)
        if not extracted.text.strip():
            raise FetchFailed("no text could be extracted")
        return Page(
            url,
            final,
            extracted.title,
            extracted.text,
            extracted.links,
            kind or "?",
            rendered,
            extracted.canonical or _canonical_header(response, final),
        )

    async def _extract(
        self,
        url: str,
        kind: str,
        response: httpx.Response,
        body: tuple[bytes, bool],
        limit: float,
    ) -> tuple[Extracted, bool]:
        data, truncated = body
        if kind == "application/pdf" or (kind.endswith("octet-stream") and url.endswith(".pdf")):
            if truncated:
                raise FetchFailed("the PDF is over the size cap")
            return await asyncio.to_thread(_pdf_or_fail, data, url), False
        text = data.decode(response.charset_encoding or "utf-8", errors="replace")
        if kind in ("text/html", "application/xhtml+xml", ""):
            return await self._extract_html(url, text, limit)
        if kind.startswith("text/"):
            return extract_text(text), False
        raise FetchFailed(f"unsupported content type {kind!r}")

    async def _extract_html(self, url: str, html: str, limit: float) -> tuple[Extracted, bool]:
        extracted = await asyncio.to_thread(extract_html, html, url)
        needs_js = extracted.scripted and len(extracted.text) < self._settings.js_min_chars
        if self._renderer is None or not needs_js:
            return extracted, False
        try:
            rendered = await self._renderer.render(url, limit)
        except PlaywrightError as error:
            reason = (error.message or type(error).__name__).splitlines()[0]
            raise FetchFailed(f"rendering in Chromium failed: {reason}") from None
        return await asyncio.to_thread(extract_html, rendered, url), True

    async def _rules(self, url: str, limit: float) -> RobotsRules:
        where = robots_url(url)
        if where not in self._robots:
            async with self._robot_locks.setdefault(where, asyncio.Lock()):
                if where not in self._robots:
                    self._robots[where] = await self._load_rules(where, limit)
        return self._robots[where]

    async def _load_rules(self, where: str, limit: float) -> RobotsRules:
        try:
            async with self._gate.slot(urlsplit(where).netloc), asyncio.timeout(limit):
                status, body = await self._read_robots(where)
        except (httpx.HTTPError, TimeoutError):
            return rules_from_response(None, b"")
        return rules_from_response(status, body)

    async def _read_robots(self, where: str) -> tuple[int, bytes]:
        """The status and at most one byte more than the rules parse (a huge file is not read
        to its end)."""
        chunks: list[bytes] = []
        size = 0
        async with self._client.stream("GET", where, follow_redirects=True) as response:
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_ROBOTS_BYTES:
                    break
        return response.status_code, b"".join(chunks)[: MAX_ROBOTS_BYTES + 1]


def _canonical_header(response: httpx.Response, base: str) -> str:
    """The canonical URL a `Link: <…>; rel="canonical"` header names (PDFs can only say so)."""
    link = response.links.get("canonical", {}).get("url", "")
    url = urldefrag(urljoin(base, link)).url if link else ""
    return url if url.startswith(("http://", "https://")) else ""


def _pdf_or_fail(body: bytes, url: str) -> Extracted:
    try:
        return extract_pdf(body, url)
    except Exception as error:  # pypdf raises many kinds on broken files
        raise FetchFailed(f"unreadable PDF: {error}") from None


def _outcome_label(outcome: FetchOutcome) -> str:
    if outcome.robots_blocked or outcome.guard_blocked:
        return "blocked"
    if outcome.page is None:
        return "failed"
    return "cached" if outcome.cached else "ok"
