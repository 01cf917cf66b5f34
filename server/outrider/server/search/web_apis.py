"""Web search services by their JSON APIs: SearXNG (self-hosted), Brave and Tavily (keyed).

These are endpoints the operator configured, not destinations the agent chose, so they do not go
through the network guard (a SearXNG on the local network is a normal setup)."""

from __future__ import annotations

import httpx

from outrider.server.search.base import SearchError, SearchResult, json_reply, results_from


class SearxngProvider:
    name = "searxng"

    def __init__(self, base_url: str, client: httpx.AsyncClient) -> None:
        self._base = base_url.rstrip("/")
        self._client = client

    async def search(self, query: str, count: int) -> list[SearchResult]:
        if not self._base:
            raise SearchError("searxng: no URL configured (OUTRIDER_RESEARCH_SEARXNG_URL)")
        data = await json_reply(
            self.name,
            self._client.get(f"{self._base}/search", params={"q": query, "format": "json"}),
        )
        return results_from(self.name, _get(data, "results"), "content", count)


class BraveProvider:
    name = "brave"

    def __init__(self, url: str, api_key: str, client: httpx.AsyncClient) -> None:
        self._url = url
        self._key = api_key
        self._client = client

    async def search(self, query: str, count: int) -> list[SearchResult]:
        if not self._key:
            raise SearchError("brave: no API key (OUTRIDER_RESEARCH_BRAVE_API_KEY)")
        headers = {"X-Subscription-Token": self._key, "Accept": "application/json"}
        params: dict[str, str | int] = {"q": query, "count": min(count, 20)}
        data = await json_reply(
            self.name, self._client.get(self._url, params=params, headers=headers)
        )
        web = _get(data, "web")
        return results_from(self.name, _get(web, "results"), "description", count)


class TavilyProvider:
    name = "tavily"

    def __init__(self, url: str, api_key: str, client: httpx.AsyncClient) -> None:
        self._url = url
        self._key = api_key
        self._client = client

    async def search(self, query: str, count: int) -> list[SearchResult]:
        if not self._key:
            raise SearchError("tavily: no API key (OUTRIDER_RESEARCH_TAVILY_API_KEY)")
        body = {"query": query, "max_results": min(count, 20), "search_depth": "basic"}
        headers = {"Authorization": f"Bearer {self._key}"}
        data = await json_reply(self.name, self._client.post(self._url, json=body, headers=headers))
        return results_from(self.name, _get(data, "results"), "content", count)


def _get(data: object, key: str) -> object:
    return data.get(key) if isinstance(data, dict) else None
