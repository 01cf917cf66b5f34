"""Research configuration: search providers, fetching, caches. Env vars OUTRIDER_RESEARCH_*."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

SEARCH_PROVIDERS = ("corpus", "searxng", "brave", "tavily")
# Says what we are; robots.txt rules for "OutriderResearch" apply to us.
DEFAULT_USER_AGENT = "OutriderResearch/0.1 (automated research agent; honours robots.txt)"


class ResearchSettings(BaseSettings):
    """Settings of the research agent. Every field is OUTRIDER_RESEARCH_<FIELD>."""

    model_config = SettingsConfigDict(env_prefix="OUTRIDER_RESEARCH_", frozen=True)

    search_providers: Annotated[tuple[str, ...], NoDecode] = Field(
        ("corpus",),
        description="Comma-separated search providers tried in order (fallback chain): "
        "corpus, searxng, brave, tavily.",
    )
    search_results: int = Field(
        8, ge=1, le=50, description="Results asked of a provider per query."
    )
    search_timeout: float = Field(10.0, gt=0, description="Seconds one provider call may take.")
    search_cache_ttl: float = Field(3600.0, ge=0, description="Seconds a search result is reused.")
    corpus_index: Path | None = Field(
        None,
        description="SQLite FTS5 index of the local corpus; <data_dir>/corpus.sqlite3 if unset.",
    )
    searxng_url: str = Field("", description="Base URL of a SearXNG instance (JSON API enabled).")
    brave_api_key: SecretStr = Field(SecretStr(""), description="Brave Search API key.")
    brave_url: str = Field(
        "https://api.search.brave.com/res/v1/web/search", description="Brave web search endpoint."
    )
    tavily_api_key: SecretStr = Field(SecretStr(""), description="Tavily API key.")
    tavily_url: str = Field("https://api.tavily.com/search", description="Tavily search endpoint.")
    fetch_timeout: float = Field(
        20.0, gt=0, description="Seconds per page when the request sets no fetch_timeout."
    )
    fetch_concurrency: int = Field(8, ge=1, le=256, description="Pages fetched at once per run.")
    per_host_concurrency: int = Field(2, ge=1, description="Requests at once to one host.")
    per_host_delay: float = Field(
        0.5, ge=0, description="Minimum seconds between request starts to one host."
    )
    max_page_bytes: int = Field(5_000_000, ge=256, description="Largest response body read.")
    fetch_cache_ttl: float = Field(86_400.0, ge=0, description="Seconds a fetched page is reused.")
    user_agent: str = Field(DEFAULT_USER_AGENT, description="User-Agent of every research request.")
    js_fallback: bool = Field(
        True, description="Render pages with Chromium when their text needs JavaScript."
    )
    js_min_chars: int = Field(
        200, ge=0, description="Extracted text shorter than this on a scripted page triggers it."
    )
    wall_time_cap: float | None = Field(
        None, gt=0, description="Seconds; caps every mode's wall-time budget lower."
    )

    @field_validator("search_providers", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(name.strip().lower() for name in value.split(",") if name.strip())
        return value

    @field_validator("search_providers")
    @classmethod
    def _known(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [name for name in value if name not in SEARCH_PROVIDERS]
        if unknown:
            raise ValueError(f"unknown search providers {unknown}; known: {SEARCH_PROVIDERS}")
        return value

    def corpus_path(self, data_dir: Path) -> Path:
        return self.corpus_index or data_dir / "corpus.sqlite3"
