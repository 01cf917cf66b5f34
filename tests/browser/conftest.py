"""Browser-agent tests: the production agent in Debian Chromium, scripted models, fixture sites."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from outrider.server.settings.browser import BrowserSettings
from tests.conftest import HarnessFactory
from tests.support.harness import REPO_ROOT, Harness

SCENARIOS = REPO_ROOT / "tests" / "fixtures" / "scenarios" / "browser"


@dataclass
class BrowserCase:
    harness: Harness
    sites: str
    transcript: Path

    def prompts(self) -> list[dict[str, Any]]:
        """Every request the scripted model received."""
        if not self.transcript.exists():
            return []
        return [json.loads(line) for line in self.transcript.read_text().splitlines()]


BrowserCaseFactory = Callable[..., Awaitable[BrowserCase]]


@pytest.fixture
def browser_case(make_harness: HarnessFactory, sites: str, tmp_path: Path) -> BrowserCaseFactory:
    """Starts a server with the production browser agent, driven by a scenario file."""

    async def make(
        scenario: str | dict[str, Any], browser: dict[str, Any] | None = None, **overrides: Any
    ) -> BrowserCase:
        loaded = (
            yaml.safe_load((SCENARIOS / scenario).read_text())
            if isinstance(scenario, str)
            else scenario
        )
        transcript = tmp_path / "transcript.jsonl"
        script = tmp_path / "scenario.yaml"
        script.write_text(yaml.safe_dump({**loaded, "transcript": str(transcript)}))
        port = sites.rsplit(":", 1)[1]
        settings = {
            "model": f"scripted:{script}",
            "network_allow": f"127.0.0.1:{port}",
            "browser": BrowserSettings(**(browser or {})),
        }
        harness = await make_harness(production=True, **(settings | overrides))
        return BrowserCase(harness, sites, transcript)

    return make
