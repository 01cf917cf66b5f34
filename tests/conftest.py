"""Shared fixtures: a real server on a loopback port with the test-only ScriptAgent."""

from __future__ import annotations

import os

# Before anything imports grpc: tests fork (pexpect spawns the CLI in a pty) from a process that
# runs gRPC servers and channels. With gRPC's fork handlers on, the forked child restarts gRPC's
# poller thread, which meets the epoll descriptor closed before exec and kills the child before
# the CLI ever starts ("Epoll1Poller encountered epoll_wait error: Bad file descriptor"). No test
# uses gRPC across a fork, so the handlers are off.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import SCENARIO_FOLDERS, Harness, start_harness, stop_harness
from tests.support.postgres import PostgresServer
from tests.support.processes import chromium_processes, command_of
from tests.support.sites import fixture_sites

HarnessFactory = Callable[..., Awaitable[Harness]]


LONG_RUNNING_TIMEOUT = 900  # seconds; the per-test timeout of pyproject.toml is 120


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Long checks first (with parallel workers, a mypy run started last would finish alone), and
    with their own timeout, which a loaded machine can stretch them to."""
    for item in items:
        if item.get_closest_marker("long_running") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(LONG_RUNNING_TIMEOUT))
    items.sort(key=lambda item: item.get_closest_marker("long_running") is None)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """After a run that checked the statement corpus, the check's precision and recall on it
    (computed here: with parallel workers, what a test prints stays in the worker)."""
    reports = terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", [])
    if any("test_statement_corpus.py" in report.nodeid for report in reports):
        from tests.research.statement_corpus import score

        terminalreporter.write_line(score().summary())


@pytest.fixture(scope="session", autouse=True)
def scripted_models_for_tests(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests name scripted scenarios per run (options.model = scripted:<file>): every server
    the suite starts, in this process or a child, opens the folders they are written to, as an
    operator opens a demo's. Tests of the refusal set OUTRIDER_SCRIPTED_MODEL_DIRS themselves."""
    folders = (tmp_path_factory.getbasetemp(), *SCENARIO_FOLDERS)
    os.environ["OUTRIDER_SCRIPTED_MODEL_DIRS"] = ",".join(str(f.resolve()) for f in folders)


@pytest.fixture(scope="session", autouse=True)
def no_chromium_left_behind() -> Iterator[None]:
    """After the whole suite, no Chromium started by it may still run."""
    yield
    deadline = time.monotonic() + 10
    while chromium_processes() and time.monotonic() < deadline:
        time.sleep(0.1)
    left = chromium_processes()
    assert not left, f"Chromium processes outlived the suite: {[command_of(p)[:80] for p in left]}"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL per test session (per xdist worker), started on first use."""
    server = PostgresServer()
    yield server
    server.close()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh, empty database of its own for the test."""
    url = postgres_server.create_database()
    yield url
    postgres_server.drop_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs the requesting test once per store backend: every server the test starts (in this
    process or a child) reads OUTRIDER_DATABASE_URL."""
    if request.param == "postgresql":
        monkeypatch.setenv("OUTRIDER_DATABASE_URL", request.getfixturevalue("postgres_url"))
    else:
        monkeypatch.delenv("OUTRIDER_DATABASE_URL", raising=False)
    return str(request.param)


@pytest.fixture
async def make_harness(tmp_path: Path) -> AsyncIterator[HarnessFactory]:
    """Starts servers with setting overrides; all are stopped after the test."""
    started: list[Harness] = []

    async def make(**overrides: Any) -> Harness:
        harness = await start_harness(tmp_path / f"server{len(started)}", **overrides)
        started.append(harness)
        return harness

    yield make
    for harness in reversed(started):
        await stop_harness(harness)


@pytest.fixture
async def harness(make_harness: HarnessFactory) -> Harness:
    return await make_harness()


@pytest.fixture
def sites() -> Iterator[str]:
    with fixture_sites() as base_url:
        yield base_url
