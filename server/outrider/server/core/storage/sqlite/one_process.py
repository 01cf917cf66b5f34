"""What a store shared by replicas does that one process owning an SQLite file needs no store for:
presence, claims on a lost replica's runs, relays to other replicas, shared secrets, live events
from elsewhere. Each answers as a process alone would."""

from __future__ import annotations

from collections.abc import Iterable

from outrider.server.core.storage.contract import (
    EventFeed,
    WorkerLoad,
)


class OneProcess:
    def claim_orphan(self, run_id: str, generation: int | None = None) -> int | None:
        return 1  # one process owns the file: every run it finds active is its own to close

    def taken_over(self, run_ids: Iterable[str]) -> list[str]:
        return []

    def fenced_out(self, run_id: str) -> bool:
        return False

    def worker_loads(self) -> list[WorkerLoad]:
        return []  # one process owns the file

    def keep_presence(self) -> bool:
        return False  # no other process could think this one gone

    def presence_epoch(self) -> int:
        return 0

    def unreachable_for(self) -> float:
        return 0.0  # a local file

    def announce(self, address: str, role: str, capacity: int = 0) -> None:
        pass  # one process owns the file: nobody relays calls to it

    def pick_worker(self) -> str | None:
        return None

    def shared_secret(self, name: str) -> str | None:
        return None  # one process owns the file: the data directory's key file is its key

    def executor_address(self, run_id: str) -> str | None:
        return None

    def event_feed(self) -> EventFeed | None:
        return None  # one process owns the file: its runs' events are all local
