"""The test kit itself: fixture sites on a loopback port, and settings from the environment."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest

from outrider.server.settings import Settings


def test_fixture_sites_serve_pages(sites: str) -> None:
    assert sites.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(f"{sites}/shop/index.html", timeout=5) as response:
        page = response.read().decode()
    assert "<title>Fixture Shop</title>" in page and "$8.25" in page


def test_settings_come_from_outrider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OUTRIDER_PORT", "6000")
    monkeypatch.setenv("OUTRIDER_API_KEYS", "alpha, beta,,")
    monkeypatch.setenv("OUTRIDER_DATA_DIR", "/tmp/outrider-data")
    monkeypatch.setenv("OUTRIDER_INTERACTION_TTL", "30")
    settings = Settings()
    assert settings.port == 6000
    assert settings.api_keys == ("alpha", "beta")
    assert settings.database_path == Path("/tmp/outrider-data/outrider.sqlite3")
    assert settings.interaction_ttl == 30


def test_bad_settings_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OUTRIDER_MAX_CONCURRENT_RUNS", "0")
    with pytest.raises(ValueError, match="max_concurrent_runs"):
        Settings()
