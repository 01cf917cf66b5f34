"""The PostgreSQL store's part that replicas share: each one's address and capacity, its presence
(and what this process reaches), the worker a start goes to, the executor of a run, shared
secrets, and claims on the runs a lost replica left (fenced by owner and generation)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import psycopg

from outrider.server.core import clock
from outrider.server.core.errors import Unavailable
from outrider.server.core.storage.contract import (
    ACTIVE_STATES,
    Orphan,
    WorkerLoad,
)
from outrider.server.core.storage.postgres.claims import claim_run
from outrider.server.core.storage.postgres.connection import (
    PostgresConnection,
    connect_pool,
)
from outrider.server.core.storage.postgres.presence import (
    UNOWNED,
    unowned,
)
from outrider.server.core.storage.postgres.secrets import shared_secret
from outrider.server.core.storage.postgres.writes import Write
from outrider.server.core.storage.rows import RUN_COLUMNS, read_run
from outrider.v1 import run_pb2


class PostgresCluster(PostgresConnection):
    # the store's (store.py): an unreadable run found among the orphans is saved as failed
    save_run: Callable[[run_pb2.Run, str], None]

    def announce(self, address: str, role: str, capacity: int = 0) -> None:
        """Upserts this process's address (rows of processes gone are dropped on the way)."""
        self._writer.put(
            # never replayed: right after a failover nobody has taken their presence back yet
            Write(f"DELETE FROM replicas p WHERE {unowned('p.owner')}", (), replay=None)
        )
        self._announced = (address, role, capacity)
        self._announce_again()

    def _announce_again(self) -> None:
        """Upserts the announced row (again: another process may have dropped it while this
        one's presence lock was briefly gone, e.g. during a database restart)."""
        if self._announced is None:
            return
        address, role, capacity = self._announced
        self._writer.put(
            Write(
                "INSERT INTO replicas (owner, address, role, announced_us, capacity) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (owner) DO UPDATE SET "
                "address = excluded.address, role = excluded.role, "
                "announced_us = excluded.announced_us, capacity = excluded.capacity",
                (self._presence.key, address, role, clock.now_us(), capacity),
            )
        )

    def keep_presence(self) -> bool:
        """Checks this process's presence lock, taking it again if PostgreSQL dropped it (then
        announcing its address again); True when it did. Blocking: call it from a thread."""
        try:
            retaken = self._presence.ensure()
            if self._reach.unreachable_for():
                self._renew_pool()
        except psycopg.Error as error:
            self._reach.missed(str(error).strip() or type(error).__name__)
            raise Unavailable(f"PostgreSQL: {error}", reason="STORE_UNAVAILABLE") from error
        self._reach.reached()
        if retaken:
            self._announce_again()
        return retaken

    def _renew_pool(self) -> None:
        """PostgreSQL is back after an outage: reads move to a pool of fresh connections at
        once (the writer reconnects on its own, see `writer`). The old pool would hand out
        none until its reconnection attempts, spaced further apart the longer the outage was,
        came round (seconds, on the event loop); what still uses it fails once and is tried
        again on the new one."""
        old, self._pool = self._pool, connect_pool(self._url, "outrider")
        old.close(timeout=0)

    def presence_epoch(self) -> int:
        return self._presence.retaken

    def unreachable_for(self) -> float:
        return self._reach.unreachable_for()

    def pick_worker(self) -> str | None:
        rows = self._rows(
            "SELECT p.address FROM replicas p LEFT JOIN runs r "
            "ON r.owner = p.owner AND r.state = ANY(%s) "
            f"WHERE p.role <> 'api' AND NOT {unowned('p.owner')} "
            "GROUP BY p.owner, p.address ORDER BY count(r.id), random() LIMIT 1",
            (list(ACTIVE_STATES),),
        )
        return str(rows[0][0]) if rows else None

    def worker_loads(self) -> list[WorkerLoad]:
        rows = self._rows(
            "SELECT p.owner, p.capacity, count(r.id) FROM replicas p LEFT JOIN runs r "
            "ON r.owner = p.owner AND r.state = ANY(%s) "
            f"WHERE p.role <> 'api' AND NOT {unowned('p.owner')} "
            "GROUP BY p.owner, p.capacity ORDER BY p.owner",
            (list(ACTIVE_STATES),),
        )
        key = self._presence.key
        return [WorkerLoad(owner == key, int(active), int(room)) for owner, room, active in rows]

    def shared_secret(self, name: str) -> str | None:
        return shared_secret(self._rows, name)

    def executor_address(self, run_id: str) -> str | None:
        rows = self._rows(
            "SELECT p.address FROM runs r JOIN replicas p ON p.owner = r.owner "
            f"WHERE r.id = %s AND r.state = ANY(%s) AND NOT {UNOWNED}",
            (run_id, list(ACTIVE_STATES)),
        )
        return str(rows[0][0]) if rows else None

    def claim_orphan(self, run_id: str, generation: int | None = None) -> int | None:
        """Claimed in a transaction of its own (`claims`), after this process's queued writes."""
        self._writer.wait()
        claimed = claim_run(self._pool, run_id, self._presence.key, generation)
        if claimed is None:
            return None
        self._generations[run_id] = claimed
        self._writer.owned_again(run_id)
        return claimed

    def orphans(self) -> list[Orphan]:
        """Active runs no live process owns: those of replicas that died or were stopped. Refused
        while this process's own presence lock is gone (the presence keeper takes it back)."""
        if not self._presence.held:
            raise Unavailable(
                "this replica's presence lock is gone until PostgreSQL is reached again",
                reason="STORE_UNAVAILABLE",
            )
        self._announce_again()
        rows = self._rows(
            f"SELECT {RUN_COLUMNS}, takeovers FROM runs r WHERE state = ANY(%s) AND {UNOWNED} "
            "ORDER BY create_us",
            (list(ACTIVE_STATES),),
        )
        found = [Orphan(read_run(row[:-1], self.save_run), int(row[-1])) for row in rows]
        return [o for o in found if o.run.state in ACTIVE_STATES]  # unreadable ones failed

    def fenced_out(self, run_id: str) -> bool:
        return self._writer.fenced_out(run_id)

    def taken_over(self, run_ids: Iterable[str]) -> list[str]:
        wanted = list(run_ids)
        if not wanted:
            return []
        rows = self._rows(
            "SELECT id FROM runs WHERE id = ANY(%s) AND owner IS DISTINCT FROM %s",
            (wanted, self._presence.key),
        )
        return [str(row[0]) for row in rows]
