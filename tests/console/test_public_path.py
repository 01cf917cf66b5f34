"""OUTRIDER_PUBLIC_URL with a path prefix: behind a proxy that serves the server under
/outrider and strips that prefix, every link, form action, redirect, cookie and static file
of the console (and the API's Location header) carries the prefix again."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import httpx
import pytest
import pytest_asyncio

from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import run_service_pb2 as rs
from tests.security.tenants import CALLER, Edges, Keys, open_edges
from tests.support.harness import eventually
from tests.support.requests import automate_request

pytestmark = pytest.mark.asyncio(loop_scope="module")
PREFIX = "/outrider"


class StrippingProxy(httpx.AsyncBaseTransport):
    """A reverse proxy publishing the server under PREFIX: it takes the prefix off each path."""

    def __init__(self) -> None:
        self._upstream = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.raw_path
        assert path.startswith(PREFIX.encode() + b"/"), path  # the proxy serves nothing else
        forwarded = httpx.Request(
            request.method,
            request.url.copy_with(raw_path=path[len(PREFIX) :]),
            headers=request.headers,
            stream=request.stream,
        )
        return await self._upstream.handle_async_request(forwarded)

    async def aclose(self) -> None:
        await self._upstream.aclose()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[Edges, Keys]]:
    folder = tmp_path_factory.mktemp("public-path")
    keys = Keys(folder / "keys.toml")
    keys.add("alice", "alpha", CALLER)
    public = f"http://outrider.example{PREFIX}"
    async for edges in open_edges(folder / "data", keys_file=keys.file, public_url=public):
        yield edges, keys


def proxied(edges: Edges) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=edges.origin, transport=StrippingProxy(), timeout=30)


async def test_console_pages_links_and_cookie_carry_the_prefix(served: tuple[Edges, Keys]) -> None:
    edges, keys = served
    async with proxied(edges) as http:
        first = await http.get(f"{PREFIX}/console/")
        assert first.status_code == 303
        assert first.headers["location"] == f"{PREFIX}/console/sign-in?next={PREFIX}/console/"
        form = await http.get(first.headers["location"])
        assert f'action="{PREFIX}/console/sign-in"' in form.text
        assert f'href="{PREFIX}/console/static/console.css"' in form.text
        signed = await http.post(
            f"{PREFIX}/console/sign-in",
            data={"key": keys.keys["alice"], "next": f"{PREFIX}/console/"},
        )
        assert signed.status_code == 303 and signed.headers["location"] == f"{PREFIX}/console/"
        assert f"Path={PREFIX}/console" in signed.headers["set-cookie"]
        runs = await http.get(f"{PREFIX}/console/")
        assert runs.status_code == 200 and "Signed in as" in runs.text
        assert f'hx-get="{PREFIX}/console/runs-table' in runs.text
        style = await http.get(f"{PREFIX}/console/static/console.css")
        assert style.status_code == 200 and "text/css" in style.headers["content-type"]
        bare = await http.get(f"{PREFIX}/console")
        assert bare.headers["location"] == f"{PREFIX}/console/"


async def test_an_answer_link_works_through_the_proxy(served: tuple[Edges, Keys]) -> None:
    edges, keys = served
    request = automate_request(steps=1, ask_input=True)
    created = await edges.runs.CreateRun(
        rs.CreateRunRequest(automate=request.params, options=request.options),
        metadata=keys.bearer("alice"),
    )
    links: list[str] = []

    async def asked() -> bool:
        listed = await edges.interactions.ListInteractions(
            isv.ListInteractionsRequest(run=created.run.name), metadata=keys.bearer("alice")
        )
        links[:] = [i.answer_url for i in listed.interactions]
        return bool(links)

    await eventually(asked)
    link = urlsplit(links[0])
    assert link.netloc == "outrider.example" and link.path.startswith(f"{PREFIX}/console/answer/")
    async with proxied(edges) as http:
        page = await http.get(link.path)
        assert page.status_code == 200
        assert re.search(rf'action="{re.escape(link.path)}"', page.text), page.text
        assert f'href="{PREFIX}/console/static/console.css"' in page.text


async def test_the_api_works_through_the_proxy(served: tuple[Edges, Keys]) -> None:
    edges, keys = served
    async with proxied(edges) as http:
        assert (await http.get(f"{PREFIX}/healthz")).status_code in (200, 503)  # open: no key
        listed = await http.get(f"{PREFIX}/v1/runs", headers=keys.header("alice"))
        assert listed.status_code == 200
        body = {"url": "https://example.com", "task": "t", "data": {"steps": 1}}
        async with http.stream(
            "POST", f"{PREFIX}/v1/automate", json=body, headers=keys.header("alice")
        ) as started:
            assert started.headers["location"].startswith(f"{PREFIX}/v1/runs/")
