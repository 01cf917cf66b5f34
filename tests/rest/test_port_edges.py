"""The REST port's composer (rest_port.py): an edge mounted beside the API answers its own paths
without the API's middleware, and its lifespan runs exactly while the server runs (the hook an
edge with a background task, such as an MCP session manager, uses)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from outrider.server.rest_edge.app import build_app
from outrider.server.rest_edge.server import RestServer
from outrider.server.rest_port import MountedEdge, composed
from outrider.server.security.authn import Keyring
from tests.rest.support import KEY
from tests.support.harness import settings_for_tests


async def test_an_edge_answers_its_paths_and_runs_its_lifespan_while_the_server_runs(
    tmp_path: Path,
) -> None:
    seen: list[str] = []

    @asynccontextmanager
    async def lifespan() -> AsyncIterator[None]:
        seen.append("started")
        yield
        seen.append("stopped")

    async def probe(request: Request) -> Response:
        return PlainTextResponse(f"probe after {seen}")

    settings = settings_for_tests(tmp_path, rest_port=0, rest_host="127.0.0.1", api_keys=(KEY,))
    keyring = Keyring(settings)
    edge = MountedEdge([Route("/probe", probe)], lifespan=lifespan)
    api = build_app(None, settings, keyring)  # type: ignore[arg-type]  # no route is called
    server = RestServer(settings, composed(api, [edge], settings, keyring))
    await server.start()
    try:
        assert seen == ["started"]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}") as http:
            answered = await http.get("/probe")  # no key: the API's key check is not in front
            assert (answered.status_code, answered.text) == (200, "probe after ['started']")
            api_refused = await http.get("/v1/runs")
            assert api_refused.status_code == 401 and api_refused.json()["error"]["status"] == 401
            unmatched = await http.get("/v1/runs/a%0Ab")  # no mount's pattern spans a newline
            assert unmatched.json()["error"]["reason"] == "NOT_FOUND"
    finally:
        await server.stop()
    assert seen == ["started", "stopped"]
