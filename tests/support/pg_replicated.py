"""A private PostgreSQL primary with a streaming standby, for failover tests and benchmarks: the
standby is made with `pg_basebackup -R` from Debian's binaries, as `postgres.PostgresServer`
makes its cluster. `fail_over()` stops the primary as a crash does (`pg_ctl stop -m immediate`)
and promotes the standby; `rebuild_standby()` makes the old primary a standby of the new one
again (a fresh base backup, as an operator re-images a failed node), so failovers can repeat.

`url(database)` is the libpq multi-host URL clients are given, with both nodes and
`target_session_attrs=read-write`, so a client finds whichever node is the primary.

With `synchronous`, the primary waits for the standby to flush each commit (what a payment
system runs, and what RDS Multi-AZ, Cloud SQL HA and Azure's zone-redundant HA do): no commit a
client was told about is lost by a failover. Without it (the default of a plain streaming
standby) the standby may lag, and a failover loses the commits it had not received yet.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from tests.support.ports import free_port
from tests.support.postgres import _bin_dir, _owner

_USER = "outrider"


@dataclass
class Node:
    name: str
    port: int
    root: Path

    @property
    def data(self) -> Path:
        return self.root / self.name

    @property
    def log(self) -> Path:
        return self.root / f"{self.name}.log"

    @property
    def url(self) -> str:
        return f"postgresql://{_USER}@127.0.0.1:{self.port}"


class ReplicatedPostgres:
    """Two nodes, `primary` and `standby`; `close()` stops both and removes their files."""

    def __init__(self, synchronous: bool = True) -> None:
        self._owner = _owner()
        self._bin = _bin_dir()
        self._synchronous = synchronous
        self.root = Path(tempfile.mkdtemp(prefix="outrider-pg-ha-"))
        if self._owner is not None:
            shutil.chown(self.root, self._owner.pw_uid, self._owner.pw_gid)
        self.primary = Node("a", free_port(), self.root)
        self.standby = Node("b", free_port(), self.root)
        try:
            self._run("initdb", "-D", self.primary.data, "-U", _USER, "--auth=trust", "--no-sync")
            self._start(self.primary)
            self._base_backup(self.standby, self.primary)
            self._start(self.standby)
            self.set_synchronous(synchronous)
        except BaseException:
            self.close()
            raise

    def url(self, database: str, **parameters: str) -> str:
        """The multi-host URL of `database`, primary first (a client tries them in order)."""
        hosts = ",".join(f"127.0.0.1:{n.port}" for n in (self.primary, self.standby))
        query = "&".join(
            f"{k}={v}" for k, v in ({"target_session_attrs": "read-write"} | parameters).items()
        )
        return f"postgresql://{_USER}@{hosts}/{database}?{query}"

    def create_database(self, name: str = "") -> str:
        """Creates it (a fresh name by default) on the primary, waits for the standby to replay
        it; returns its multi-host URL."""
        name = name or f"outrider_ha_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(f"{self.primary.url}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        self.wait_replayed()
        return self.url(name)

    def wait_replayed(self, within: float = 30.0) -> None:
        """Returns once the standby has replayed everything the primary wrote so far."""
        with psycopg.connect(f"{self.primary.url}/postgres", autocommit=True) as conn:
            row = conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
        assert row is not None
        deadline = time.monotonic() + within
        with psycopg.connect(f"{self.standby.url}/postgres", autocommit=True) as conn:
            while True:
                done = conn.execute(
                    "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (row[0],)
                ).fetchone()
                if done and done[0]:
                    return
                if time.monotonic() > deadline:
                    raise TimeoutError("the standby did not catch up")
                time.sleep(0.02)

    def stop_primary(self) -> None:
        """As a crash: every session ends at once, nothing is flushed or handed over."""
        self._pg_ctl(self.primary, "-m", "immediate", "-w", "stop")

    def promote(self, wait: bool = True) -> None:
        """The standby becomes the primary (with `wait`, returns once it accepts writes, which
        pg_ctl checks every 100 ms; without, at once); the roles swap."""
        if wait:
            self._pg_ctl(self.standby, "-w", "promote")
        else:
            with psycopg.connect(f"{self.standby.url}/postgres", autocommit=True) as conn:
                conn.execute("SELECT pg_promote(wait => false)")
        self.primary, self.standby = self.standby, self.primary

    def accepts_writes(self) -> bool:
        """The primary is out of recovery (a promotion has ended)."""
        try:
            with psycopg.connect(f"{self.primary.url}/postgres", autocommit=True) as conn:
                row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
        except psycopg.OperationalError:
            return False
        return row is not None and not row[0]

    def fail_over(self, decide: float = 0.0) -> None:
        """Stops the primary, then promotes the standby `decide` seconds later (the time a
        failover manager takes to judge the primary dead: Patroni's TTL, RDS's health checks)."""
        self.stop_primary()
        time.sleep(decide)
        self.promote()

    def stop_standby(self) -> None:
        self._pg_ctl(self.standby, "-m", "fast", "-w", "stop")

    def start_standby(self) -> None:
        self._start(self.standby)

    def rebuild_standby(self) -> None:
        """The stopped old primary comes back as a standby of the new one (never as a second
        primary: clients would find two read-write nodes)."""
        shutil.rmtree(self.standby.data)
        self._base_backup(self.standby, self.primary)
        self._start(self.standby)
        self.set_synchronous(self._synchronous)

    def ready(self, synchronous: bool = True) -> None:
        """A primary and a streaming standby again, whatever a previous user left (a failover
        done, or cut short), with commits waiting for the standby or not."""
        if not self._running(self.primary):
            if self._running(self.standby):
                self.promote()
            else:
                self._start(self.primary)
        if not self._running(self.standby):
            self.rebuild_standby()
        self.set_synchronous(synchronous)

    def _running(self, node: Node) -> bool:
        try:
            self._run("pg_ctl", "-D", node.data, "status")
        except subprocess.CalledProcessError:
            return False
        return True

    def close(self) -> None:
        for node in (self.primary, self.standby):
            if (node.data / "postmaster.pid").exists():
                try:
                    self._pg_ctl(node, "-m", "immediate", "-w", "stop")
                except subprocess.CalledProcessError:
                    pass  # not running
        shutil.rmtree(self.root, ignore_errors=True)

    def set_synchronous(self, synchronous: bool) -> None:
        """Commits on the primary wait for the standby's flush (or not); the setting is the
        primary's, so it is set again after every rebuild."""
        self._synchronous = synchronous
        names = "'*'" if synchronous else "''"
        with psycopg.connect(f"{self.primary.url}/postgres", autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET synchronous_standby_names = {names}")
            conn.execute("SELECT pg_reload_conf()")
            if synchronous:  # wait until the standby counts as synchronous
                deadline = time.monotonic() + 30
                while not conn.execute(
                    "SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'"
                ).fetchone():
                    if time.monotonic() > deadline:
                        raise TimeoutError("the standby never became synchronous")
                    time.sleep(0.02)

    def _base_backup(self, node: Node, source: Node) -> None:
        self._run(
            "pg_basebackup",
            *("-h", "127.0.0.1", "-p", str(source.port), "-U", _USER),
            *("-D", node.data, "-R", "-X", "stream", "--no-sync", "-c", "fast"),
        )

    def _start(self, node: Node) -> None:
        options = (
            f"-p {node.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off -c max_connections=200 -c wal_level=replica "
            f"-c cluster_name=outrider-{node.name}"
        )
        self._pg_ctl(node, "-o", options, "-w", "start")

    def _pg_ctl(self, node: Node, *arguments: str | Path) -> None:
        self._run("pg_ctl", "-D", node.data, "-l", node.log, *arguments)

    def _run(self, program: str, *arguments: str | Path) -> None:
        extra: dict[str, Any] = {}
        if self._owner is not None:
            extra = {"user": self._owner.pw_uid, "group": self._owner.pw_gid, "extra_groups": []}
        subprocess.run(
            [str(self._bin / program), *(str(a) for a in arguments)],
            check=True,
            capture_output=True,
            timeout=120,
            **extra,
        )
