"""The key file: hashed keys only, checked entries, the `outrider keys create` command, the
OUTRIDER_API_KEYS shortcut, reload on SIGHUP without dropping streams, and stores from before
tenants existed."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from outrider.client.keys import append_key, key_hash
from outrider.server.security.keys import load_key_file
from outrider.v1 import run_pb2, run_service_pb2_grpc
from outrider.v1 import run_service_pb2 as rs
from tests.security.tenants import CALLER, open_edges
from tests.support.harness import ServerProcess, eventually
from tests.support.requests import automate_request

GOOD_HASH = "sha256:" + "0" * 64


def bearer(key: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {key}"),)


@pytest.mark.parametrize(
    ("entry", "complaint"),
    [
        ('id = "a"\ntenant = "t"\nscopes = ["runs.read"]\nhash = "sha256:abc"', "64 lowercase"),
        ('id = "a"\ntenant = "t"\nscopes = ["runs.fly"]\nhash = "' + GOOD_HASH + '"', "unknown"),
        ('id = "a"\ntenant = "t"\nscopes = ["runs.read"]', "needs a hash"),
        ('id = "a b"\ntenant = "t"\nscopes = ["runs.read"]\nhash = "' + GOOD_HASH + '"', "id"),
        ('id = "a"\ntenant = "t"\nscopes = []\nhash = "' + GOOD_HASH + '"', "non-empty"),
        ('id = "a"\ntenant = "t"\nscopes = ["admin"]\ncertificate = "c"\nkey = "x"', "unknown"),
        (
            'id = "a"\ntenant = "t"\nscopes = ["admin"]\ncertificate = "c"\nlimits = { x = 1 }',
            "limits",
        ),
    ],
)
def test_bad_entries_are_refused_with_their_place(
    tmp_path: Path, entry: str, complaint: str
) -> None:
    path = tmp_path / "keys.toml"
    path.write_text(f"[[keys]]\n{entry}\n")
    with pytest.raises(ValueError, match=complaint) as caught:
        load_key_file(path)
    assert "keys[0]" in str(caught.value)


def test_duplicate_ids_and_yaml(tmp_path: Path) -> None:
    twice = tmp_path / "keys.toml"
    append_key(twice, "same", "t", CALLER)
    append_key(twice, "same", "u", CALLER)
    with pytest.raises(ValueError, match="duplicate id 'same'"):
        load_key_file(twice)
    shared = tmp_path / "shared.toml"
    entry = '[[keys]]\nid = "{}"\ntenant = "t"\nscopes = ["admin"]\ncertificate = "cn"\n'
    shared.write_text(entry.format("one") + entry.format("two"))
    with pytest.raises(ValueError, match="already belongs"):
        load_key_file(shared)
    as_yaml = tmp_path / "keys.yaml"
    as_yaml.write_text(
        f"keys:\n  - id: svc\n    tenant: t\n    scopes: [runs.read, runs.start]\n"
        f"    hash: {key_hash('k')}\n    limits: {{max_concurrent_runs: 3}}\n"
    )
    table = load_key_file(as_yaml)
    principal = table.by_hash[key_hash("k")]
    assert principal.id == "svc" and principal.limits.max_concurrent_runs == 3


async def test_cli_creates_a_key_printed_once_and_stored_hashed(tmp_path: Path) -> None:
    path = tmp_path / "keys.toml"
    made = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "outrider.cli.main", "keys", "create", "--id", "billing",
         "--tenant", "fin", "--file", str(path), "--scope", "runs.read",
         "--max-concurrent-runs", "2"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    key = made.stdout.strip()
    assert key.startswith("ork_") and len(key) > 40
    stored = path.read_text()
    assert key not in stored and key_hash(key) in stored
    assert "limits = { max_concurrent_runs = 2 }" in stored
    async for edges in open_edges(tmp_path / "data", keys_file=path):
        listed = await edges.runs.ListRuns(rs.ListRunsRequest(), metadata=bearer(key))
        assert list(listed.runs) == []
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await edges.runs.CreateRun(rs.CreateRunRequest(), metadata=bearer(key))
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await edges.runs.ListRuns(rs.ListRunsRequest(), metadata=bearer(key_hash(key)))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_sighup_reloads_keys_ending_the_streams_of_a_revoked_one(tmp_path: Path) -> None:
    path = tmp_path / "keys.toml"
    first = append_key(path, "first", "t", CALLER)
    kept = append_key(path, "kept", "t", CALLER)
    kept_entry = path.read_text().split("[[keys]]")[2]
    process = ServerProcess(tmp_path / "data", OUTRIDER_KEYS_FILE=str(path))
    process.start()
    process.drain()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{process.port}") as channel:
            runs = run_service_pb2_grpc.RunServiceStub(channel)  # type: ignore[no-untyped-call]
            streams = [
                runs.Automate(automate_request(steps=400, interval=0.05), metadata=bearer(key))
                for key in (first, kept)
            ]
            for stream in streams:
                assert (await stream.read()).HasField("event")
            path.write_text("[[keys]]" + kept_entry)  # the first key is revoked...
            second = append_key(path, "second", "t", CALLER)  # ...and another one added
            process.signal(signal.SIGHUP)

            async def second_works() -> bool:
                try:
                    await runs.ListRuns(rs.ListRunsRequest(), metadata=bearer(second))
                except grpc.aio.AioRpcError:
                    return False
                return True

            await eventually(second_works)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await runs.ListRuns(rs.ListRunsRequest(), metadata=bearer(first))
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.aio.AioRpcError) as ended:  # at its next event
                while True:
                    await asyncio.wait_for(streams[0].read(), 30)
            assert ended.value.code() == grpc.StatusCode.UNAUTHENTICATED
            for _ in range(5):  # the stream of the key that stayed keeps flowing
                assert (await asyncio.wait_for(streams[1].read(), 30)).HasField("event")
            path.write_text("[[keys]]\nbroken")
            process.signal(signal.SIGHUP)
            await eventually(lambda: "key file not reloaded" in "".join(process.tail))
            assert await second_works()  # a broken file leaves the keys in force
            streams[1].cancel()
    finally:
        process.close()


OLD_SCHEMA = """
CREATE TABLE runs (id TEXT PRIMARY KEY, kind INTEGER NOT NULL, state INTEGER NOT NULL,
  create_us INTEGER NOT NULL, body BLOB NOT NULL);
CREATE TABLE events (run_id TEXT NOT NULL, sequence INTEGER NOT NULL, body BLOB NOT NULL,
  PRIMARY KEY (run_id, sequence)) WITHOUT ROWID;
"""


async def test_runs_from_before_tenants_load_in_the_default_tenant(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    old = run_pb2.Run(name="runs/0000000000aa", kind=1, state=run_pb2.RUN_STATE_SUCCEEDED)
    created_us = time.time_ns() // 1000  # recent: the retention sweep at start keeps it
    with sqlite3.connect(data / "outrider.sqlite3") as db:
        db.executescript(OLD_SCHEMA)
        db.execute(
            "INSERT INTO runs VALUES (?, 1, ?, ?, ?)",
            ("0000000000aa", old.state, created_us, old.SerializeToString()),
        )
    keys = tmp_path / "keys.toml"
    other = append_key(keys, "other", "elsewhere", CALLER)
    async for edges in open_edges(data, keys_file=keys, api_keys=("legacy",)):
        got = await edges.runs.GetRun(rs.GetRunRequest(name=old.name), metadata=bearer("legacy"))
        assert got.run.tenant == "default" and got.run.state == run_pb2.RUN_STATE_SUCCEEDED
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await edges.runs.GetRun(rs.GetRunRequest(name=old.name), metadata=bearer(other))
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
