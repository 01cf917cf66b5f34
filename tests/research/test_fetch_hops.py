"""Issue 10, item 1, the rest of the research agent's outbound requests: robots.txt, pages and
PDFs whose server redirects to a refused address (by address, IPv6 or a name that resolves to
loopback) open no connection there; the fetcher reports a guard refusal instead. And hostile
pages cannot break the fetcher through its renderer: one that never falls network-quiet is read
as it stands, and a Chromium that fails is one failed page (it used to raise out of the fetch)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from outrider.server.fetch.fetcher import Fetcher
from outrider.server.net.guard import NetworkGuard
from outrider.server.settings import Settings
from outrider.server.settings.research import ResearchSettings
from tests.research.probes import PROBES_DIR, listeners
from tests.research.web import fixture_web


class _Redirector(BaseHTTPRequestHandler):
    """Every GET is a 302 to the same path on `to`; /robots.txt too, or a 404 (no rules)."""

    to: str
    robots_redirects: bool

    def do_GET(self) -> None:
        if self.path == "/robots.txt" and not self.robots_redirects:
            self.send_error(404)
            return
        self.send_response(302)
        self.send_header("Location", self.to + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def redirector(to: str, robots_redirects: bool) -> Iterator[int]:
    handler = type("Redirect", (_Redirector,), {"to": to, "robots_redirects": robots_redirects})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize("robots_redirects", [True, False], ids=["robots", "pages"])
@pytest.mark.parametrize("host", ["127.0.0.1", "[::1]", "localhost"])
async def test_redirects_of_robots_pages_and_pdfs_never_reach_a_refused_address(
    host: str, robots_redirects: bool
) -> None:
    async with listeners(("127.0.0.1", "::1")) as refused:
        with redirector(f"http://{host}:{refused.port}", robots_redirects) as port:
            guard = NetworkGuard([f"127.0.0.1:{port}"])
            settings = ResearchSettings(per_host_delay=0.0, js_fallback=True)
            async with Fetcher(settings, guard, None, Settings().chromium_path) as fetcher:
                page = await fetcher.fetch(f"http://127.0.0.1:{port}/page.html", 10)
                pdf = await fetcher.fetch(f"http://127.0.0.1:{port}/report.pdf", 10)
    assert refused.reached.total == 0, refused.reached
    for outcome in (page, pdf):
        assert outcome.guard_blocked and "loopback address" in outcome.error, outcome.error


async def test_a_page_that_never_falls_quiet_is_read_as_it_stands() -> None:
    with fixture_web(PROBES_DIR) as web:
        guard = NetworkGuard([f"127.0.0.1:{web.port}"])
        settings = ResearchSettings(per_host_delay=0.0, js_fallback=True)
        async with Fetcher(settings, guard, None, Settings().chromium_path) as fetcher:
            outcome = await fetcher.fetch(f"{web.url}/restless.html", 5)
    assert outcome.page is not None and outcome.page.rendered, outcome.error
    assert "its text is here" in outcome.page.text


async def test_a_chromium_that_cannot_start_fails_the_page_not_the_run(tmp_path: Path) -> None:
    with fixture_web(PROBES_DIR) as web:
        guard = NetworkGuard([f"127.0.0.1:{web.port}"])
        settings = ResearchSettings(per_host_delay=0.0, js_fallback=True)
        async with Fetcher(settings, guard, None, tmp_path / "no-chromium") as fetcher:
            outcome = await fetcher.fetch(f"{web.url}/restless.html", 5)
    assert outcome.page is None and "rendering in Chromium failed" in outcome.error
