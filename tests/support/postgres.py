"""A private PostgreSQL for tests: OUTRIDER_TEST_DATABASE_URL when set, otherwise a throwaway
cluster (Debian's initdb and pg_ctl) in a temporary directory on a free loopback port. PostgreSQL
refuses to run as root, so under root the cluster belongs to the `postgres` system user (or
`nobody`). Each test gets a database of its own, dropped afterwards."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any

import psycopg

from tests.support.ports import free_port

ENV_URL = "OUTRIDER_TEST_DATABASE_URL"
_USER = "outrider"


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_major_of)
    if not found:
        raise RuntimeError(
            "PostgreSQL is not installed: run `scripts/bootstrap.sh --test` (installs Debian's "
            f"postgresql) or point {ENV_URL} at a server"
        )
    return Path(found[-1]).parent


def _major_of(path: str) -> int:
    return int(Path(path).parents[1].name)


def _owner() -> pwd.struct_passwd | None:
    """The unprivileged account to run PostgreSQL as; None when we are not root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root, but neither a `postgres` nor a `nobody` user exists")


class PostgresServer:
    """Hands out fresh databases on one server; `close()` stops a cluster it started.
    `private`: a cluster of its own even when OUTRIDER_TEST_DATABASE_URL names a server (a test
    that restarts it)."""

    def __init__(self, private: bool = False) -> None:
        self._root: Path | None = None
        self._owner = _owner()
        self._bin = Path()
        self._options = ""
        url = None if private else os.environ.get(ENV_URL)
        self.base_url = url.rstrip("/").rsplit("/", 1)[0] if url else self._start_cluster()

    def _run(self, *command: str | Path) -> None:
        extra: dict[str, Any] = {}
        if self._owner is not None:
            extra = {"user": self._owner.pw_uid, "group": self._owner.pw_gid, "extra_groups": []}
        subprocess.run(
            [str(part) for part in command], check=True, capture_output=True, timeout=60, **extra
        )

    def _start_cluster(self) -> str:
        self._bin = _bin_dir()
        self._root = Path(tempfile.mkdtemp(prefix="outrider-pg-"))
        if self._owner is not None:
            os.chown(self._root, self._owner.pw_uid, self._owner.pw_gid)
        data = self._root / "data"
        self._run(self._bin / "initdb", "-D", data, "-U", _USER, "--auth=trust", "--no-sync")
        port = free_port()
        self._options = (
            f"-p {port} -k {self._root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off -c max_connections=200"
        )
        self._pg_ctl("-w", "start")
        return f"postgresql://{_USER}@127.0.0.1:{port}"

    def _pg_ctl(self, *arguments: str) -> None:
        assert self._root is not None
        data, log = self._root / "data", self._root / "log"
        self._run(self._bin / "pg_ctl", "-D", data, "-l", log, "-o", self._options, *arguments)

    def restart(self) -> None:
        """Stops the cluster (fast: every session is ended, as when a database server restarts)
        and starts it again; returns once it accepts connections."""
        if self._root is None:
            raise RuntimeError("only a cluster this process started can be restarted")
        self._pg_ctl("-m", "fast", "-w", "restart")

    def stop(self) -> None:
        """Stops the cluster (fast: every session is ended); `start` brings it back."""
        if self._root is None:
            raise RuntimeError("only a cluster this process started can be stopped")
        self._pg_ctl("-m", "fast", "-w", "stop")

    def start(self) -> None:
        self._pg_ctl("-w", "start")

    def create_database(self) -> str:
        name = f"outrider_test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(f"{self.base_url}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"{self.base_url}/{name}"

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        with psycopg.connect(f"{self.base_url}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self) -> None:
        if self._root is None:
            return
        try:
            self._run(
                self._bin / "pg_ctl", "-D", self._root / "data", "-m", "immediate", "-w", "stop"
            )
        except subprocess.CalledProcessError:
            pass  # stopped already (a test that stops it failed before starting it again)
        finally:
            shutil.rmtree(self._root, ignore_errors=True)


def drop_oldest_presence(url: str) -> None:
    """Ends the oldest presence session of the Outrider stores on `url` (tests open two: the
    cut-off one first), as a network partition does once its keepalives give up: that store's
    runs become nobody's."""
    with psycopg.connect(url, autocommit=True) as conn:
        pids = [
            row[0]
            for row in conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE application_name = 'outrider-presence' "
                "AND datname = current_database() ORDER BY backend_start"
            )
        ]
        # waits (up to 5 s) until the session is gone, and its lock with it
        conn.execute("SELECT pg_terminate_backend(%s, 5000)", (pids[0],))


def presence_keys(url: str) -> list[int]:
    """The presence keys held on `url`'s database, oldest session first (as stores opened)."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT l.objid::bigint FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
            "AND a.application_name = 'outrider-presence' AND a.datname = current_database() "
            "ORDER BY a.backend_start"
        ).fetchall()
    return [int(row[0]) for row in rows]


def drop_presence(url: str, key: int) -> None:
    """Ends the session holding presence key `key` (and waits until it is gone), as a network
    blip or a database failover drops it: its process looks gone until it takes it back."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(l.pid, 5000) FROM pg_locks l WHERE l.locktype = "
            "'advisory' AND l.granted AND l.objsubid = 2 AND l.objid::bigint = %s",
            (key,),
        )


def waiting_for_locks(url: str, besides: str = "") -> int:
    """How many sessions of `url`'s database wait for a lock another one holds; with `besides`,
    not counting those waiting in that statement (one of the server's background writers, which
    may wait on the same lock whenever it happens to run)."""
    skipped = besides.split("%s", 1)[0] if besides else None  # as far as its first parameter
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database() "
            "AND (%s::text IS NULL OR NOT starts_with(ltrim(query), %s::text))",
            (skipped, skipped),
        ).fetchone()
    return int(row[0]) if row else 0


def listening(url: str) -> bool:
    """Whether a store's live-event feed (its LISTEN connection) is connected to `url`'s
    database."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'outrider-listen' "
            "AND datname = current_database() AND query LIKE 'LISTEN%%'"
        ).fetchone()
    return bool(row and row[0])
