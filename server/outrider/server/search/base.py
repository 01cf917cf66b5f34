"""The search provider interface and its errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import httpx


@dataclass(frozen=True)
class SearchResult:
    url: str
    title: str
    snippet: str
    provider: str


class SearchError(Exception):
    """One provider could not answer (down, refused, misconfigured, malformed reply)."""


class SearchProvider(Protocol):
    name: str

    async def search(self, query: str, count: int) -> list[SearchResult]: ...


async def json_reply(name: str, call: Any) -> Any:
    """Awaits an httpx call and returns its JSON body, turning every failure into SearchError."""
    try:
        response: httpx.Response = await call
    except httpx.HTTPError as error:
        raise SearchError(f"{name}: {type(error).__name__}: {error}") from None
    if response.status_code >= 400:
        raise SearchError(f"{name}: HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError:
        raise SearchError(f"{name}: the reply is not JSON") from None


def results_from(name: str, items: Any, snippet_key: str, count: int) -> list[SearchResult]:
    """Reads a list of {url, title, <snippet_key>} objects; anything else is a SearchError."""
    if not isinstance(items, list):
        raise SearchError(f"{name}: unexpected reply shape")
    results = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            title = str(item.get("title") or item["url"])
            results.append(SearchResult(item["url"], title, str(item.get(snippet_key) or ""), name))
    return results[:count]
