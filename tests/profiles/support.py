"""What the profile and credential tests share: a server with the production browser agent, a
vault key and the credential scenario, two login sites (the real one and a look-alike on another
port), the log lines written meanwhile, runs followed to their end, a profile signed in by a run
with the credential, and a person signing in by hand through a takeover."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyotp
from playwright.async_api import Error as PlaywrightError
from pydantic import SecretStr

from outrider.server.core.events.names import event_name
from outrider.server.core.vault.keyring import new_key_entry
from outrider.server.settings.browser import BrowserSettings
from outrider.server.settings.vault import VaultSettings
from outrider.v1 import credential_pb2, params_pb2, profile_pb2, run_event_pb2, run_pb2
from outrider.v1 import credential_service_pb2 as cs
from outrider.v1 import credential_service_pb2_grpc as csg
from outrider.v1 import profile_service_pb2 as ps
from outrider.v1 import profile_service_pb2_grpc as psg
from outrider.v1 import run_service_pb2 as rs
from tests.browser.takeover_kit import Person, key_events, person
from tests.console.support import LogLines, capture_logs
from tests.support.harness import REPO_ROOT, Harness, eventually, start_harness, stop_harness
from tests.support.login_site import PASSWORD, SEED, USER, LoginSite, login_site

SCENARIO = REPO_ROOT / "tests" / "fixtures" / "scenarios" / "browser" / "credential_login.yaml"
ON_SUCCESS, ALWAYS = profile_pb2.PROFILE_SAVE_ON_SUCCESS, profile_pb2.PROFILE_SAVE_ALWAYS
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


async def signed_in_profile(server: VaultServer, profile_id: str) -> str:
    """A new profile with a check, saved by a run that logged in with the credential."""
    check = profile_pb2.ProfileCheck(url=f"{server.site.url}/account", text="Sign out")
    created = ps.CreateProfileRequest(profile_id=profile_id, check=check)
    await server.profiles.CreateProfile(created)
    name = f"profiles/{profile_id}"
    await unseen_code(server)
    run, events = await server.run(
        "Sign in to Acme and read who is signed in.",
        f"{server.site.url}/login",
        credentials=["credentials/acme"],
        profile=name,
        profile_save=ON_SUCCESS,
    )
    assert run.outcome.success and run.outcome.profile_save.saved, run.outcome
    needs = named(events, "profile_needs_login")[0].profile_needs_login
    assert needs.credentials and not needs.asking  # version 0: signed out; it logs in itself
    saved = named(events, "profile_saved")[0].profile_saved
    assert saved.version == 1 and saved.cookie_count == 2  # pending and sid
    names = [e.WhichOneof("payload") for e in events]
    assert names.index("profile_saved") < len(names) - 2  # before complete and done
    return name


async def version(server: VaultServer, name: str) -> profile_pb2.Profile:
    response: ps.GetProfileResponse = await server.profiles.GetProfile(
        ps.GetProfileRequest(name=name)
    )
    return response.profile


async def log_in_at_screen(server: VaultServer, run: str) -> Person:
    """A person takes over `run`'s browser (on the site's login page) once it asks for one, and
    signs in: the password, then a one-time code the site has not seen yet. They still have the
    browser, on the account page, when this returns."""
    at_screen = person(server, run)  # type: ignore[arg-type]
    controls = server.harness.server.runs.browsers
    await eventually(lambda: pending_takeover(server, run), within=60)
    await at_screen.take_over()
    await at_screen.type(USER)
    await at_screen.send(key_events("Tab"))
    await at_screen.type(PASSWORD)
    await at_screen.send(key_events("Enter"))
    await eventually(lambda: "/verify" in where(controls, run), within=30)
    # a person types once the field is there: the URL commits before the page is parsed
    await eventually(lambda: has_focus(controls, run, "code"), within=30)
    # the site takes a code once: wait out the step whose code an earlier login used
    await unseen_code(server)
    await at_screen.type(pyotp.TOTP(SEED).now())
    await at_screen.send(key_events("Enter"))
    try:
        await eventually(lambda: "/account" in where(controls, run), within=30)
    except AssertionError:
        got = [(path, fields.get("code")) for path, fields in server.site.received[-3:]]
        raise AssertionError(
            f"not signed in at {where(controls, run)}; the site got {got}"
        ) from None
    return at_screen


async def run_logged_in_by_hand(
    server: VaultServer, params: params_pb2.AutomateParams, options: params_pb2.RunOptions
) -> tuple[run_pb2.Run, list[run_event_pb2.RunEvent]]:
    """Starts a run that asks for a person (`log_in_at_screen`), who signs in and hands the
    browser back; (the run as it ended, its events)."""
    created = await server.harness.runs.CreateRun(
        rs.CreateRunRequest(automate=params, options=options)
    )
    run = created.run.name
    streamed = asyncio.create_task(followed(server.harness, run))
    at_screen = await log_in_at_screen(server, run)
    await at_screen.hand_back("Signed in again.")
    events = await asyncio.wait_for(streamed, 120)
    ended = await server.harness.runs.GetRun(rs.GetRunRequest(name=run))
    return ended.run, events


async def unseen_code(server: VaultServer) -> None:
    """Waits until the current one-time code is one the site has not seen: it refuses a code
    used once, and a code a person typed is not in the vault's audit trail."""
    totp = pyotp.TOTP(SEED)
    await eventually(lambda: totp.now() not in server.site.codes_used, within=40)


def pending_takeover(server: VaultServer, run: str) -> bool:
    control = server.harness.server.runs.browsers.of(run.removeprefix("runs/"))
    return control is not None and control.current is not None


def where(controls: object, run: str) -> str:
    control = controls.of(run.removeprefix("runs/"))  # type: ignore[attr-defined]
    return control.live.where() if control is not None and control.live is not None else ""


async def has_focus(controls: object, run: str, field: str) -> bool:
    """Whether the field named `field` has the keyboard on the run's page, read from the page
    itself, as a person sees where the caret is (False while it loads)."""
    control = controls.of(run.removeprefix("runs/"))  # type: ignore[attr-defined]
    page = control.live._session.current if control is not None and control.live else None
    if page is None:
        return False
    try:
        return bool(await page.evaluate("(f) => document.activeElement?.name === f", field))
    except PlaywrightError:  # navigating
        return False


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
