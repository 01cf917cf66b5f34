"""Real HTTP servers on 127.0.0.1 for research tests: the fixture web (with a request log, a
concurrency gauge and a few special routes) and one server speaking the JSON wire formats of
SearXNG, Brave and Tavily."""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.harness import REPO_ROOT

WEB_DIR = REPO_ROOT / "tests" / "fixtures" / "web"


@dataclass
class Traffic:
    """What a server saw: request paths and User-Agents, and the most requests at once."""

    requests: list[tuple[str, str]] = field(default_factory=list)
    active: int = 0
    most_active: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def paths(self) -> list[str]:
        with self.lock:
            return [path for path, _ in self.requests]

    def enter(self, path: str, agent: str) -> None:
        with self.lock:
            self.requests.append((path, agent))
            self.active += 1
            self.most_active = max(self.most_active, self.active)

    def leave(self) -> None:
        with self.lock:
            self.active -= 1


class _WebHandler(SimpleHTTPRequestHandler):
    traffic: Traffic
    hold: float  # seconds each page request takes (to let concurrency show)

    def do_GET(self) -> None:
        self.traffic.enter(self.path, self.headers.get("User-Agent", ""))
        try:
            self._route()
        finally:
            self.traffic.leave()

    def _route(self) -> None:
        parts = urlsplit(self.path)
        if parts.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", parse_qs(parts.query)["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif parts.path.startswith("/slow/"):
            time.sleep(float(parse_qs(parts.query).get("s", ["5"])[0]))
            self.path = "/" + parts.path.removeprefix("/slow/")
            super().do_GET()
        elif parts.path.startswith("/linked/"):  # the file, naming its plain URL as canonical
            self.path = parts.path.removeprefix("/linked")
            self.canonical = self.path
            super().do_GET()
        elif parts.path == "/big.html":
            self._send(b"<html><body><p>" + b"bees " * 400_000 + b"</p></body></html>")
        else:
            if self.hold and parts.path.endswith(".html"):
                time.sleep(self.hold)
            super().do_GET()

    def end_headers(self) -> None:
        if getattr(self, "canonical", ""):
            self.send_header("Link", f'<{self.canonical}>; rel="canonical"')
        super().end_headers()

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass
class Server:
    url: str
    port: int
    traffic: Traffic


@contextmanager
def _serve(handler: Callable[..., BaseHTTPRequestHandler], traffic: Traffic) -> Iterator[Server]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="research-fixture", daemon=True)
    thread.start()
    port = server.server_address[1]
    try:
        yield Server(f"http://127.0.0.1:{port}", port, traffic)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def fixture_web(root: Path = WEB_DIR, hold: float = 0.0) -> Iterator[Server]:
    """The fixture web at a random port."""
    traffic = Traffic()
    handler = type("Handler", (_WebHandler,), {"traffic": traffic, "hold": hold})
    with _serve(functools.partial(handler, directory=str(root)), traffic) as server:
        yield server


Results = Callable[[str], list[dict[str, str]]]  # query -> [{url, title, snippet}]


@dataclass
class SearchBehaviour:
    results: Results
    failing: set[str] = field(default_factory=set)  # providers answering HTTP 503
    keys: dict[str, str] = field(default_factory=dict)  # provider -> API key it accepts


class _SearchHandler(BaseHTTPRequestHandler):
    traffic: Traffic
    behaviour: SearchBehaviour

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        self.traffic.enter(self.path, self.headers.get("User-Agent", ""))
        self.traffic.leave()
        if parts.path == "/searxng/search" and query.get("format") == ["json"]:
            found = self.behaviour.results(query["q"][0])
            items = [{"url": r["url"], "title": r["title"], "content": r["snippet"]} for r in found]
            self._answer("searxng", {"query": query["q"][0], "results": items})
        elif parts.path == "/brave/res/v1/web/search":
            if self.headers.get("X-Subscription-Token") != self.behaviour.keys.get("brave"):
                return self._json(401, {"error": "invalid subscription token"})
            found = self.behaviour.results(query["q"][0])[: int(query.get("count", ["20"])[0])]
            web = [
                {"url": r["url"], "title": r["title"], "description": r["snippet"]} for r in found
            ]
            self._answer("brave", {"type": "search", "web": {"type": "search", "results": web}})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        self.traffic.enter(self.path, self.headers.get("User-Agent", ""))
        self.traffic.leave()
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if urlsplit(self.path).path != "/tavily/search":
            return self._json(404, {"error": "not found"})
        if self.headers.get("Authorization") != f"Bearer {self.behaviour.keys.get('tavily')}":
            return self._json(401, {"detail": {"error": "Unauthorized"}})
        found = self.behaviour.results(body["query"])[: body.get("max_results", 5)]
        items = [
            {"url": r["url"], "title": r["title"], "content": r["snippet"], "score": 0.9}
            for r in found
        ]
        self._answer("tavily", {"query": body["query"], "results": items})

    def _answer(self, provider: str, payload: dict[str, Any]) -> None:
        if provider in self.behaviour.failing:
            self._json(503, {"error": f"{provider} is down"})
        else:
            self._json(200, payload)

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def fake_search_apis(behaviour: SearchBehaviour) -> Iterator[Server]:
    """SearXNG at <url>/searxng, Brave at <url>/brave/res/v1/web/search, Tavily at
    <url>/tavily/search."""
    traffic = Traffic()
    handler = type("Handler", (_SearchHandler,), {"traffic": traffic, "behaviour": behaviour})
    with _serve(handler, traffic) as server:
        yield server
