"""Store-level tests: the `Store` contract on both backends, and their migrations."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from outrider.server.core.storage import Store, open_store
from tests.support.harness import ServerProcess, settings_for_tests
from tests.support.pg_replicated import ReplicatedPostgres
from tests.support.postgres import PostgresServer


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


ReplicaStarter = Callable[..., ServerProcess]


@contextlib.contextmanager
def replica_starter(database_url: str, folder: Path) -> Iterator[ReplicaStarter]:
    """Starts server processes on `database_url`; all are killed on leaving."""
    started: list[ServerProcess] = []

    def start(production: bool = False, rest: bool = False, **env: str) -> ServerProcess:
        # failover sweeps off unless a test asks: the tests of start-up recovery need the runs of
        # a killed replica left for the next replica to start
        env = {"OUTRIDER_FAILOVER_INTERVAL": "0", **env}
        replica = ServerProcess(
            folder / str(len(started)),
            production=production,
            rest=rest,
            OUTRIDER_DATABASE_URL=database_url,
            **env,
        )
        started.append(replica)
        replica.start()
        return replica

    try:
        yield start
    finally:
        for replica in started:
            replica.close()


@pytest.fixture
def start_replica(postgres_url: str, tmp_path: Path) -> Iterator[ReplicaStarter]:
    with replica_starter(postgres_url, tmp_path) as start:
        yield start


@pytest.fixture(scope="module")
def module_database(postgres_server: PostgresServer) -> Iterator[str]:
    """A database for the replicas a module's tests share (tests that kill or restart one keep
    their own, from `start_replica`)."""
    url = postgres_server.create_database()
    yield url
    postgres_server.drop_database(url)


@pytest.fixture(scope="module")
def start_module_replica(
    module_database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ReplicaStarter]:
    """Like `start_replica`, for replicas that live as long as the module's tests."""
    with replica_starter(module_database, tmp_path_factory.mktemp("replicas")) as start:
        yield start


@pytest.fixture(scope="session")
def replicated_postgres() -> Iterator[ReplicatedPostgres]:
    """A private primary with a streaming standby (per xdist worker), started on first use;
    tests fail it over and call `ready()` to have a standby again."""
    cluster = ReplicatedPostgres()
    yield cluster
    cluster.close()
