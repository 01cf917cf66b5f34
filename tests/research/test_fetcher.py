"""The fetcher against the fixture web: extraction (HTML, PDF, text, JavaScript-only pages), the
network guard on every hop, politeness, size caps and its cache."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from outrider.server.fetch.cache import SqliteCache
from outrider.server.fetch.fetcher import Fetcher
from outrider.server.net.guard import NetworkGuard
from outrider.server.settings import Settings
from outrider.server.settings.research import ResearchSettings
from tests.research.web import Server, fixture_web


@pytest.fixture
def elsewhere() -> Iterator[Server]:
    with fixture_web() as server:
        yield server


def fetcher(web: Server, cache: SqliteCache | None = None, **settings: Any) -> Fetcher:
    options: dict[str, Any] = {"per_host_delay": 0.0, "js_fallback": False} | settings
    guard = NetworkGuard([f"127.0.0.1:{web.port}"])
    return Fetcher(ResearchSettings(**options), guard, cache, Settings().chromium_path)


async def test_html_pdf_and_text_pages_become_markdown_with_links(web: Server) -> None:
    async with fetcher(web) as fetch:
        html, pdf, text = await asyncio.gather(
            fetch.fetch(f"{web.url}/varroa.html#top", 10),
            fetch.fetch(f"{web.url}/reports/varroa-survey.pdf", 10),
            fetch.fetch(f"{web.url}/notes/glossary.txt", 10),
        )
    assert html.page is not None and html.url == f"{web.url}/varroa.html"
    assert html.page.title == "The varroa mite" and html.page.text.startswith("# The varroa mite")
    assert "deformed wing virus" in html.page.text and "<p>" not in html.page.text
    assert f"{web.url}/reports/varroa-survey.pdf" in {link.url for link in html.page.links}
    assert pdf.page is not None and pdf.page.content_type == "application/pdf"
    assert pdf.page.title == "Varroa survey 2023" and "62 percent" in pdf.page.text
    assert text.page is not None and text.page.title == "Beekeeping glossary"


async def test_a_page_whose_text_needs_javascript_is_rendered_in_chromium(web: Server) -> None:
    async with fetcher(web, js_fallback=True) as fetch:
        outcome = await fetch.fetch(f"{web.url}/bee-vision.html", 30)
    assert outcome.page is not None and outcome.page.rendered
    assert "ultraviolet nectar guides" in outcome.page.text


async def test_the_guard_refuses_unlisted_private_addresses_on_every_hop(
    web: Server, elsewhere: Server
) -> None:
    hop = f"{web.url}/redirect?to={quote(f'{elsewhere.url}/varroa.html')}"
    async with fetcher(web) as fetch:
        direct = await fetch.fetch(f"{elsewhere.url}/varroa.html", 5)
        redirected = await fetch.fetch(hop, 5)
        metadata = await fetch.fetch("http://169.254.169.254/latest/meta-data/", 5)
        allowed = await fetch.fetch(f"{web.url}/redirect?to=/queen.html", 5)
    assert direct.guard_blocked and "network guard" in direct.error
    assert redirected.guard_blocked and not redirected.requested
    assert metadata.guard_blocked and "metadata" in metadata.error
    assert elsewhere.traffic.paths() == []
    assert allowed.page is not None and allowed.page.final_url == f"{web.url}/queen.html"


async def test_robots_txt_is_honoured_with_an_honest_user_agent(web: Server) -> None:
    async with fetcher(web) as fetch:
        blocked = await fetch.fetch(f"{web.url}/private/draft-notes.html", 5)
        fine = await fetch.fetch(f"{web.url}/queen.html", 5)
    assert blocked.robots_blocked and blocked.page is None and fine.page is not None
    assert web.traffic.paths() == ["/robots.txt", "/queen.html"]
    assert {agent for _, agent in web.traffic.requests} == {ResearchSettings().user_agent}


async def test_requests_to_one_host_stay_within_its_concurrency(tmp_path: Path) -> None:
    with fixture_web(hold=0.1) as web:
        pages = [f"{web.url}/{name}.html" for name in ("queen", "drones", "workers", "honey")]
        async with fetcher(web, per_host_concurrency=2, fetch_concurrency=8) as fetch:
            outcomes = await asyncio.gather(*(fetch.fetch(url, 10) for url in pages * 2))
        assert all(o.page is not None for o in outcomes)
        assert web.traffic.most_active <= 2


async def test_bodies_over_the_size_cap_are_cut_and_pdfs_over_it_refused(web: Server) -> None:
    async with fetcher(web, max_page_bytes=65_536) as fetch:
        big = await fetch.fetch(f"{web.url}/big.html", 10)
    async with fetcher(web, max_page_bytes=512) as fetch:
        pdf = await fetch.fetch(f"{web.url}/reports/varroa-survey.pdf", 10)
    assert big.page is not None and 0 < len(big.page.text) <= 65_536
    assert pdf.page is None and "size cap" in pdf.error
    assert web.traffic.paths().count("/reports/varroa-survey.pdf") == 1


async def test_pages_are_cached_and_served_from_the_cache(web: Server, tmp_path: Path) -> None:
    cache = SqliteCache(tmp_path / "cache.sqlite3", "pages", ttl=60)
    async with fetcher(web, cache) as fetch:
        first = await fetch.fetch(f"{web.url}/honey.html", 5)
        second = await fetch.fetch(f"{web.url}/honey.html", 5)
        bypass = await fetch.fetch(f"{web.url}/honey.html", 5, use_cache=False)
    assert not first.cached and second.cached and not bypass.cached
    assert first.page == second.page == bypass.page
    assert web.traffic.paths().count("/honey.html") == 2
