"""Cluster-wide limits on active runs hold under starts racing on several replicas: counting and
saving a new run is one step for every process sharing the PostgreSQL store."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from outrider.server.core.storage import ActiveLimits, Store, open_store
from outrider.v1 import run_pb2
from tests.support.harness import settings_for_tests

REPLICAS = 3
STARTS_PER_REPLICA = 8


@pytest.fixture
def stores(postgres_url: str, tmp_path: Path) -> Iterator[list[Store]]:
    settings = settings_for_tests(tmp_path, database_url=postgres_url)
    opened = [open_store(settings) for _ in range(REPLICAS)]
    yield opened
    for store in opened:
        store.close()


def _race(stores: list[Store], limits: ActiveLimits, tenant_of: list[str]) -> list[str | None]:
    """Every replica starts its runs at once (threads released together); the refusals."""
    results: list[str | None] = []
    gate = threading.Barrier(len(stores))

    def start(index: int, store: Store) -> None:
        gate.wait()
        for n in range(STARTS_PER_REPLICA):
            run_id = f"race-{index}-{n}"
            tenant = tenant_of[(index + n) % len(tenant_of)]
            run = run_pb2.Run(name=f"runs/{run_id}", state=run_pb2.RUN_STATE_QUEUED, tenant=tenant)
            results.append(store.insert_run_within(run, run_id, limits))

    threads = [threading.Thread(target=start, args=(i, s)) for i, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_racing_starts_never_pass_the_cluster_limit(stores: list[Store]) -> None:
    results = _race(stores, ActiveLimits(cluster=5), ["default"])
    assert results.count(None) == 5
    assert results.count("CLUSTER_BUSY") == REPLICAS * STARTS_PER_REPLICA - 5
    assert stores[0].count_active() == 5


def test_racing_starts_never_pass_a_tenant_limit(stores: list[Store]) -> None:
    results = _race(stores, ActiveLimits(tenant=3), ["alpha", "beta"])
    assert results.count(None) == 6  # three of each tenant
    assert stores[1].count_active("alpha") == 3
    assert stores[2].count_active("beta") == 3
