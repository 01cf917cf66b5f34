"""What the profile and credential tests share: a server with the production browser agent, a
vault key and the credential scenario, two login sites (the real one and a look-alike on another
port), the log lines written meanwhile, and runs followed to their end."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from outrider.server.core.events.names import event_name
from outrider.server.core.vault.keyring import new_key_entry
from outrider.server.settings.browser import BrowserSettings
from outrider.server.settings.vault import VaultSettings
from outrider.v1 import credential_pb2, params_pb2, run_event_pb2, run_pb2
from outrider.v1 import credential_service_pb2 as cs
from outrider.v1 import credential_service_pb2_grpc as csg
from outrider.v1 import profile_service_pb2_grpc as psg
from outrider.v1 import run_service_pb2 as rs
from tests.console.support import LogLines, capture_logs
from tests.support.harness import REPO_ROOT, Harness, start_harness, stop_harness
from tests.support.login_site import PASSWORD, SEED, USER, LoginSite, login_site

SCENARIO = REPO_ROOT / "tests" / "fixtures" / "scenarios" / "browser" / "credential_login.yaml"
QUESTIONS = ("input_requested", "approval_requested", "takeover_requested")


@dataclass
class VaultServer:
    harness: Harness
    site: LoginSite
    lookalike: LoginSite
    folder: Path
    logs: LogLines
    transcript: Path
    hold: Path  # the folder of the scenario's wait_for files
    credentials: csg.CredentialServiceStub = field(init=False)
    profiles: psg.ProfileServiceStub = field(init=False)

    def __post_init__(self) -> None:
        self.credentials = csg.CredentialServiceStub(self.harness.channel)
        self.profiles = psg.ProfileServiceStub(self.harness.channel)

    async def set_acme(self, origins: list[str] | None = None) -> None:
        secret = credential_pb2.CredentialSecret(username=USER, password=PASSWORD, totp_seed=SEED)
        request = cs.SetCredentialRequest(
            name="credentials/acme", origins=origins or [self.site.url], secret=secret
        )
        await self.credentials.SetCredential(request)

    async def run(
        self, task: str, url: str, **options: Any
    ) -> tuple[run_pb2.Run, list[run_event_pb2.RunEvent]]:
        """Starts a browser run and follows it to its end: (the run as it ended, its events)."""
        params = params_pb2.AutomateParams(task=task, url=url)
        created = await self.harness.runs.CreateRun(
            rs.CreateRunRequest(automate=params, options=params_pb2.RunOptions(**options))
        )
        events = await followed(self.harness, created.run.name)
        ended = await self.harness.runs.GetRun(rs.GetRunRequest(name=created.run.name))
        return ended.run, events


async def followed(harness: Harness, run: str) -> list[run_event_pb2.RunEvent]:
    stream = harness.runs.StreamRunEvents(rs.StreamRunEventsRequest(name=run))
    return [r.event async for r in stream if r.HasField("event")]


def named(events: list[run_event_pb2.RunEvent], name: str) -> list[run_event_pb2.RunEvent]:
    return [e for e in events if event_name(e) == name]


def questions(events: list[run_event_pb2.RunEvent]) -> int:
    return sum(1 for e in events if event_name(e) in QUESTIONS)


@contextlib.asynccontextmanager
async def vault_server(folder: Path, **settings: Any) -> AsyncIterator[VaultServer]:
    transcript = folder / "transcript.jsonl"
    script = folder / "scenario.yaml"
    hold = folder / "hold"
    hold.mkdir()
    text = SCENARIO.read_text().replace("HOLD", str(hold))
    script.write_text(text + f"\ntranscript: {transcript}\n")
    with two_sites() as (site, lookalike):
        allow = ",".join(s.url.removeprefix("http://") for s in (site, lookalike))
        async with contextlib.AsyncExitStack() as stack:
            logs = capture_logs(stack)
            harness = await start_harness(
                folder / "data",
                production=True,
                model=f"scripted:{script}",
                network_allow=allow,
                browser=BrowserSettings(),
                vault=VaultSettings(keys=SecretStr(new_key_entry("test-1"))),
                **settings,
            )
            try:
                yield VaultServer(harness, site, lookalike, folder, logs, transcript, hold)
            finally:
                await stop_harness(harness)


@contextlib.contextmanager
def two_sites() -> Iterator[tuple[LoginSite, LoginSite]]:
    with login_site() as site, login_site() as lookalike:
        yield site, lookalike
