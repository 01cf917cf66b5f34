"""Store-level tests: the `Store` contract on both backends, and their migrations."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from outrider.server.core.storage import Store, open_store
from tests.support.harness import ServerProcess, settings_for_tests
from tests.support.pg_replicated import ReplicatedPostgres


@pytest.fixture
def store(store_backend: str, tmp_path: Path) -> Iterator[Store]:
    """A fresh store of each backend (OUTRIDER_DATABASE_URL is set by `store_backend`)."""
    opened = open_store(settings_for_tests(tmp_path))
    yield opened
    opened.close()


@pytest.fixture
def two_stores(postgres_url: str, tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    """Two PostgreSQL stores on one database, as two replicas hold them."""
    settings = settings_for_tests(tmp_path, database_url=postgres_url)
    first, second = open_store(settings), open_store(settings)
    yield first, second
    first.close()
    second.close()


@pytest.fixture
def start_replica(postgres_url: str, tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    started: list[ServerProcess] = []

    def start(production: bool = False, rest: bool = False, **env: str) -> ServerProcess:
        # failover sweeps off unless a test asks: the tests of start-up recovery need the runs of
        # a killed replica left for the next replica to start
        env = {"OUTRIDER_FAILOVER_INTERVAL": "0", **env}
        replica = ServerProcess(
            tmp_path / str(len(started)),
            production=production,
            rest=rest,
            OUTRIDER_DATABASE_URL=postgres_url,
            **env,
        )
        started.append(replica)
        replica.start()
        return replica

    yield start
    for replica in started:
        replica.close()


@pytest.fixture(scope="session")
def replicated_postgres() -> Iterator[ReplicatedPostgres]:
    """A private primary with a streaming standby (per xdist worker), started on first use;
    tests fail it over and call `ready()` to have a standby again."""
    cluster = ReplicatedPostgres()
    yield cluster
    cluster.close()
