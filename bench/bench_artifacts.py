"""Artifact bytes: files beside SQLite against rows of PostgreSQL (issue 14: any replica serves
any artifact).

For each backend, one store (SqliteStore in a temporary data dir; PostgresStore on a fresh
database of a private cluster, as the tests start it: fsync off, so commits cost less than on a
durable server) and one run. Each round saves SHOTS screenshot-sized artifacts and BIG larger
ones (random bytes: JPEG does not compress either), then reads every one back through
`ArtifactStore.read` with ReadArtifact's default chunk (256 KiB) as the gRPC edge does. Reported
per backend: time the event loop spends in each save call (SQLite writes the file there;
PostgreSQL only queues), MB/s until the saves are committed, read MB/s, and the time the loop is
held by saving a 5 MiB download followed by any read (on PostgreSQL that read first waits, by
the read barrier, for the queued bytes to be committed). Backends alternate round by round.

Run from the repo root: `.venv/bin/python -m bench.bench_artifacts [rounds] [shots] [shot_kib]`.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from outrider.server.core.principals import SYSTEM
from outrider.server.core.runs.artifacts import ArtifactStore
from outrider.server.core.storage import Store
from outrider.server.core.storage.postgres.store import PostgresStore
from outrider.server.core.storage.sqlite.store import SqliteStore
from outrider.v1 import run_pb2
from tests.support.postgres import PostgresServer

BIG = 4
BIG_BYTES = 5 * 1024 * 1024


def a_run(run_id: str) -> run_pb2.Run:
    run = run_pb2.Run(name=f"runs/{run_id}", kind=run_pb2.RUN_KIND_AUTOMATE)
    run.state = run_pb2.RUN_STATE_RUNNING
    run.create_time.GetCurrentTime()
    return run


async def one_round(store: Store, run_id: str, payloads: list[bytes]) -> dict[str, float]:
    store.save_run(a_run(run_id), run_id)
    artifacts = ArtifactStore(store)
    save_us: list[float] = []
    began = time.perf_counter()
    names = []
    for data in payloads:
        start = time.perf_counter()
        names.append(artifacts.save(run_id, data, "image/jpeg"))
        save_us.append((time.perf_counter() - start) * 1e6)
    await store.committed()
    written = time.perf_counter() - began
    stall_ms = []
    for data in payloads[-BIG:]:  # a download, then the next read on the loop (PostgreSQL's
        start = time.perf_counter()  # read barrier waits for the queued bytes to commit)
        artifacts.save(run_id, data, "application/pdf")
        store.get_run(run_id)
        stall_ms.append((time.perf_counter() - start) * 1e3)
    await store.committed()
    total = sum(len(p) for p in payloads)
    began = time.perf_counter()
    read = 0
    for name in names:
        artifact_id = name.rsplit("/", 1)[1]
        async for _, data in artifacts.read(run_id, artifact_id, 0, 0, SYSTEM):
            read += len(data)
    seconds = time.perf_counter() - began
    assert read == total
    return {
        "save_p50_us": statistics.median(save_us),
        "save_max_us": max(save_us),
        "write_mb_s": total / written / 1e6,
        "read_mb_s": total / seconds / 1e6,
        "5mib_save_then_read_ms": statistics.median(stall_ms),
    }


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    shots = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    shot_bytes = (int(sys.argv[3]) if len(sys.argv) > 3 else 100) * 1024
    payloads = [os.urandom(shot_bytes) for _ in range(shots)]
    payloads += [os.urandom(BIG_BYTES) for _ in range(BIG)]
    server = PostgresServer()
    folder = Path(tempfile.mkdtemp(prefix="bench-artifacts-"))
    stores: dict[str, Store] = {
        "sqlite (files)": SqliteStore(folder / "outrider.sqlite3"),
        "postgresql (rows)": PostgresStore(server.create_database()),
    }
    results: dict[str, list[dict[str, float]]] = {name: [] for name in stores}
    try:
        for number in range(rounds):
            for name, store in stores.items():
                figures = asyncio.run(one_round(store, f"run{number:012d}", payloads))
                results[name].append(figures)
    finally:
        for store in stores.values():
            store.close()
        server.close()
    total_mb = sum(len(p) for p in payloads) / 1e6
    print(f"{shots} x {shot_bytes // 1024} KiB + {BIG} x 5 MiB = {total_mb:.1f} MB per round")
    print(f"load average: {os.getloadavg()}")
    for name, rows in results.items():
        keys = rows[0].keys()
        medians = {key: statistics.median(row[key] for row in rows) for key in keys}
        shown = ", ".join(f"{key} {value:.1f}" for key, value in medians.items())
        print(f"{name}: {shown}")
    pg, sqlite = (results[name] for name in ("postgresql (rows)", "sqlite (files)"))
    for key in ("read_mb_s", "write_mb_s"):
        ratios = [p[key] / s[key] for p, s in zip(pg, sqlite, strict=True)]
        print(f"{key} postgresql/sqlite per round: {', '.join(f'{r:.2f}' for r in ratios)}")


if __name__ == "__main__":
    main()
