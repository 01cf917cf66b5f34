"""Profiles and credentials: what a saved login saves, what a profile costs to load and save by
its size, and what a credential fill adds to a fill.

1. A signed-in task (read the account page of the login fixture site, tests/support/login_site.py)
   three ways, --rounds times each, interleaved: logging in each time with a credential (email,
   password, a TOTP code), and starting from a profile that a first run saved. Production browser
   agent in Debian Chromium, scripted model (no model latency: the figures are the harness's and
   the browser's; each model call saved is one call of a real model's latency more), gRPC on
   loopback. Questions to a person, model calls and wall time per run. (Logging in by a person
   each time asks one takeover per run: tests/profiles/test_profiles.py.)
2. Profile load and save by the state's size (localStorage of one origin): in the vault (seal and
   store, open and unseal; SQLite) and in Chromium (a new context from the state; the context's
   state read back with IndexedDB).
3. A credential fill: the vault's grant (the policy and its audit row, committed) against the
   browser's fill of a password field.

Run from the repo root: `.venv/bin/python -m bench.bench_vault [--rounds 5]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.core.principals import CALLER_SCOPES, Principal
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.storage import open_store
from outrider.server.core.vault.credentials import Credentials
from outrider.server.core.vault.opened_profile import OpenedProfile
from outrider.server.core.vault.profiles import Profiles
from outrider.server.core.vault.run_credentials import RunCredentials
from outrider.v1 import credential_pb2, profile_pb2
from outrider.v1 import profile_service_pb2 as ps
from tests.profiles.support import VaultServer, questions, vault_server
from tests.support.harness import settings_for_tests
from tests.vault.support import a_vault

LOGIN_TASK = "Sign in to Acme and read who is signed in."
PROFILE_TASK = "Read my Acme account."
SIZES = (0, 10_000, 100_000, 1_000_000, 4_000_000)  # 0: a context with no state at all
ACME = Principal("bench", "bench", CALLER_SCOPES)


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.1f} ms"


async def timed(work: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    await work()
    return time.perf_counter() - start


def model_calls(server: VaultServer, task: str) -> int:
    return sum(1 for line in server.transcript.read_text().splitlines() if task in line)


async def signed_in_task(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        async with vault_server(Path(folder)) as server:
            await server.set_acme()
            url = server.site.url
            check = profile_pb2.ProfileCheck(url=f"{url}/account", text="Sign out")
            created = ps.CreateProfileRequest(profile_id="acme", check=check)
            await server.profiles.CreateProfile(created)
            saving = profile_pb2.PROFILE_SAVE_ON_SUCCESS
            await server.run(LOGIN_TASK, f"{url}/login", credentials=["credentials/acme"],
                             profile="profiles/acme", profile_save=saving)  # fmt: skip
            ways: dict[str, tuple[str, str, dict[str, Any]]] = {
                "logging in each time (credential)": (
                    LOGIN_TASK, "/login", {"credentials": ["credentials/acme"]}
                ),
                "starting from the profile": (
                    PROFILE_TASK, "/account", {"profile": "profiles/acme"}
                ),
            }  # fmt: skip
            walls: dict[str, list[float]] = {way: [] for way in ways}
            asked, calls = dict.fromkeys(ways, 0), dict.fromkeys(ways, 0)
            for _ in range(rounds):
                for way, (task, path, options) in ways.items():
                    before = model_calls(server, task)
                    start = time.perf_counter()
                    run, events = await server.run(task, f"{url}{path}", **options)
                    walls[way].append(time.perf_counter() - start)
                    assert run.outcome.success, run.outcome
                    asked[way] += questions(events)
                    calls[way] += model_calls(server, task) - before
            print(f"1. signed-in task, {rounds} runs each (median wall time from the client)")
            for way in ways:
                print(f"   {way:36} questions {asked[way] / rounds:.0f}  model calls "
                      f"{calls[way] / rounds:.0f}  wall {median_ms(walls[way])}")  # fmt: skip


def state_of_size(size: int) -> dict[str, Any]:
    if not size:
        return {"cookies": [], "origins": []}
    value = "v" * 1000
    entries = [{"name": f"k{n}", "value": value} for n in range(max(1, size // 1010))]
    cookie = {"name": "sid", "value": "s" * 32, "domain": "127.0.0.1", "path": "/", "expires": -1,
              "httpOnly": True, "secure": False, "sameSite": "Lax"}  # fmt: skip
    return {
        "cookies": [cookie],
        "origins": [{"origin": "http://127.0.0.1:9", "localStorage": entries}],
    }


async def profile_sizes() -> None:
    print("2. profile load and save by size (median of 5)")
    header = ("size", "vault save", "vault load", "chromium load", "chromium save")
    print("   " + "  ".join(f"{h:>14}" for h in header))
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(settings_for_tests(Path(folder)))
        vault = a_vault(store, profile_max_bytes=10_000_000)
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=list(CHROMIUM_FLAGS), headless=True
            )
            for size in SIZES:
                state = state_of_size(size)
                Profiles(vault).create(ACME, f"p{size}", profile_pb2.ProfileCheck())
                figures: list[list[float]] = [[], [], [], []]
                for run in range(5):
                    for column, sample in enumerate(
                        await one_round(vault, browser, f"p{size}", f"r{run}", state)
                    ):
                        figures[column].append(sample)
                row = [f"{size:,}", *(median_ms(samples) for samples in figures)]
                print("   " + "  ".join(f"{cell:>14}" for cell in row))
            await browser.close()
        store.close()


async def one_round(
    vault: Any, browser: Any, profile_id: str, holder: str, state: dict[str, Any]
) -> list[float]:
    """(vault save, vault load, Chromium context from the state, its state read back) in s."""
    opened = OpenedProfile.open(vault, "bench", profile_id, holder, save=True)
    start = time.perf_counter()
    assert opened.save(state).saved
    save = time.perf_counter() - start
    opened.close()
    start = time.perf_counter()
    OpenedProfile.open(vault, "bench", profile_id, "reader", save=False)
    load = time.perf_counter() - start
    start = time.perf_counter()
    context = await browser.new_context(storage_state=state if state["cookies"] else None)
    into = time.perf_counter() - start
    start = time.perf_counter()
    await context.storage_state(indexed_db=True)
    back = time.perf_counter() - start
    await context.close()
    return [save, load, into, back]


async def fill_overhead() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(settings_for_tests(Path(folder)))
        vault = a_vault(store)
        origin = "http://127.0.0.1:9"
        secret = credential_pb2.CredentialSecret(username="ada", password="pw-bench")
        Credentials(vault).set(ACME, "crm", [origin], secret)
        mine = RunCredentials.load(vault, "bench", "run0000001", ["crm"], Redactor())
        grants = [await timed(lambda: mine.grant("crm", "password", origin, "password", "s"))
                  for _ in range(200)]  # fmt: skip
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=list(CHROMIUM_FLAGS), headless=True
            )
            page = await browser.new_page()
            await page.set_content('<input type="password" aria-label="Password">')
            field = page.get_by_label("Password")
            fills = [await timed(lambda: field.fill("pw-bench")) for _ in range(200)]
            await browser.close()
        store.close()
    print("3. a credential fill (median of 200)")
    print(f"   vault grant (policy + audit row committed, SQLite)  {median_ms(grants)}")
    print(f"   the browser's fill of a password field              {median_ms(fills)}")


async def main(rounds: int) -> None:
    await signed_in_task(rounds)
    await profile_sizes()
    await fill_overhead()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(main(parser.parse_args().rounds))
