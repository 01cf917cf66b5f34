"""The tabstack SDK driving the production browser agent (Chromium, scripted model, fixture
sites): a login that asks for form data, gets a wrong email (form-data error), then the right
one, and finishes; every event typed by the SDK with no unknown keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tabstack
import yaml

from outrider.server.settings.browser import BrowserSettings
from tests.rest.conftest import RestFactory
from tests.rest.sdk_models import extras
from tests.support.harness import REPO_ROOT
from tests.support.sites import fixture_sites

SCENARIO = REPO_ROOT / "tests" / "fixtures" / "scenarios" / "browser" / "interactive_login.yaml"
VALUES = {"email": "ada@example.com", "password": "Canary-Pw-1"}


@pytest.fixture
def sites() -> Iterator[str]:
    with fixture_sites() as base_url:
        yield base_url


def _answer(fields: list[Any], email: str) -> list[dict[str, str]]:
    values = VALUES | {"email": email}
    return [{"ref": f.ref, "value": values[f.field_type]} for f in fields]


async def test_sdk_drives_an_interactive_browser_login(
    make_rest: RestFactory, sites: str, tmp_path: Path
) -> None:
    script = tmp_path / "scenario.yaml"
    script.write_text(yaml.safe_dump(yaml.safe_load(SCENARIO.read_text())))
    case = await make_rest(
        production=True,
        model=f"scripted:{script}",
        network_allow=f"127.0.0.1:{sites.rsplit(':', 1)[1]}",
        browser=BrowserSettings(),
    )
    sdk = tabstack.AsyncTabstack(api_key="unused", base_url=case.base_url, max_retries=0)
    events = []
    async with sdk:
        stream = await sdk.agent.automate(
            task="Log me in.",
            url=f"{sites}/browser/login.html",
            interactive=True,
            trusted_hostnames=["127.0.0.1"],
        )
        async for event in stream:
            events.append(event)
            if event.event == "interactive:form_data:request":
                fields = _answer(event.data.fields, "not-an-email")
                await sdk.agent.automate_input(event.data.request_id, fields=fields)
            elif event.event == "interactive:form_data:error":
                fields = _answer(event.data.fields, VALUES["email"])
                await sdk.agent.automate_input(event.data.request_id, fields=fields)
    names = [e.event for e in events]
    assert names[-2:] == ["complete", "done"] and events[-2].data.success, names
    assert {"task:setup", "agent:action", "browser:navigated", "ai:generation"} <= set(names)
    assert {"interactive:form_data:request", "interactive:form_data:error"} <= set(names)
    for event in events:
        assert type(event).__module__ == "tabstack.types.automate_event"
        assert not extras(event), (event.event, extras(event))
