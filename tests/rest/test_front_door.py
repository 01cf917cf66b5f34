"""The REST port's root as a newcomer's browser or a client meets it: with the console, a browser
lands on the console; without it, a short page names the port's doors (the API, MCP, A2A) with
links; a client that does not ask for HTML gets the same list as JSON. Behind a proxy that
publishes the port under a path, every link carries it."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.rest.support import start_rest

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


async def test_a_browser_at_the_root_lands_on_the_console(tmp_path: Path) -> None:
    case = await start_rest(tmp_path)
    try:
        async with httpx.AsyncClient(base_url=case.origin) as client:
            landed = await client.get("/", headers=HTML, follow_redirects=True)
            listed = await client.get("/")
        assert landed.status_code == 200 and landed.url.path.startswith("/console/")
        assert "Outrider console" in landed.text
        doors = {door["name"]: door["url"] for door in listed.json()["doors"]}
        assert doors == {
            "REST/SSE API": f"{case.origin}/v1",
            "Console": f"{case.origin}/console/",
            "MCP": f"{case.origin}/mcp",
            "A2A": f"{case.origin}/.well-known/agent-card.json",
        }
    finally:
        await case.stop()


async def test_without_the_console_the_root_names_the_other_doors(tmp_path: Path) -> None:
    case = await start_rest(tmp_path, console=False, public_url="https://agents.example/outrider")
    try:
        async with httpx.AsyncClient(base_url=case.origin) as client:
            page = await client.get("/", headers=HTML)
            card = await client.get("/.well-known/agent-card.json")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        base = "https://agents.example/outrider"
        for url in (f"{base}/v1", f"{base}/mcp", f"{base}/.well-known/agent-card.json"):
            assert f'<a href="{url}">' in page.text, url
        assert "/console" not in page.text.replace("the console is turned off", "")
        assert card.status_code == 200  # a door it names answers
    finally:
        await case.stop()
