"""The store contract every backend (SQLite, PostgreSQL) keeps, and what they share.

The interface is synchronous on purpose: the core calls it from the event loop without awaiting,
as it always has. SQLite answers from the local file in microseconds; the PostgreSQL backend
keeps that shape by writing behind (an ordered queue drained by one writer thread, committed in
batches) and by reading only after its own queued writes are committed, so a read never sees
less than this process wrote. An async interface would need every caller up to the edges to
await, a much larger change in the core for no gain on SQLite.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from outrider.server.core.storage.session_contract import SessionStore
from outrider.server.core.storage.start_key import REQUEST_ID_TAKEN as REQUEST_ID_TAKEN
from outrider.server.core.storage.start_key import StartKey as StartKey
from outrider.server.core.storage.vault_contract import VaultStore
from outrider.server.core.storage.webhook_contract import WebhookStore
from outrider.v1 import interaction_pb2, run_event_pb2, run_pb2

SIGNING_SECRET = "signing key"  # Store.shared_secret's name for the key of core/paging.py
ACTIVE_STATES = (
    run_pb2.RUN_STATE_QUEUED,
    run_pb2.RUN_STATE_RUNNING,
    run_pb2.RUN_STATE_INPUT_REQUIRED,
    run_pb2.RUN_STATE_APPROVAL_REQUIRED,
)


@dataclass(frozen=True)
class RunUsage:
    """A finished run as retention sees it: its age and what its artifacts weigh."""

    run_id: str
    create_us: int
    artifact_bytes: int


@dataclass(frozen=True)
class ActiveLimits:
    """Most active runs a store may hold when a run starts (0: no limit): in all, and of the
    starting run's tenant."""

    cluster: int = 0
    tenant: int = 0

    def refusal(self, tenant: str, count_active: Callable[[str | None], int]) -> str | None:
        """The reason a start is refused ("CLUSTER_BUSY", "TENANT_BUSY"), or None."""
        if self.cluster and count_active(None) >= self.cluster:
            return "CLUSTER_BUSY"
        if self.tenant and count_active(tenant) >= self.tenant:
            return "TENANT_BUSY"
        return None


@dataclass(frozen=True)
class KeyedRun:
    """The run a start key names, and the digest of the request that made it."""

    run_id: str
    digest: str


@dataclass(frozen=True)
class Orphan:
    """An active run that no running process executes, and its owner generation: how many times
    it was claimed so far (`claim_orphan` claims it only in the generation it was seen in)."""

    run: run_pb2.Run
    generation: int


@dataclass(frozen=True)
class AnswerRecord:
    """What the store keeps of an interaction beside its message: never an answer's values."""

    digest: bytes | None  # keyed digest of the answer it accepted, if any (see interactions)
    lost: bool  # the attempt of its run that asked it was lost with its replica
    asked_again_as: str  # id of the interaction its resumed run asked in its place, or ""


@dataclass(frozen=True)
class WorkerLoad:
    """A live replica that executes runs, as takeovers weigh it: its active runs, and how many
    it may hold (executing slots plus queue; 0 when it did not say)."""

    mine: bool  # this process
    active: int
    capacity: int


class RunWatch(Protocol):
    """Wakes a watcher when another process may have added events to one run."""

    async def wait(self, idle_after: float) -> bool: ...

    def close(self) -> None: ...


class EventFeed(Protocol):
    """Events appended by other processes sharing the store, as wake-ups per run."""

    def watch(self, run_id: str) -> RunWatch: ...


class Store(WebhookStore, SessionStore, VaultStore, Protocol):
    """Runs, their events, interactions, artifacts, browser recipes, sessions
    (`session_contract`), the vault's profiles and credentials (`vault_contract`) and the webhook
    outbox (`webhook_contract`). Reads take an optional `tenant`: given, rows of other tenants do
    not exist. Writes are visible to this process's next read."""

    def save_run(self, run: run_pb2.Run, run_id: str) -> None: ...

    def insert_run_within(
        self, run: run_pb2.Run, run_id: str, limits: ActiveLimits, key: StartKey | None = None
    ) -> str | None:
        """Inserts a new run, committed before it returns, unless the store's active runs already
        reach `limits` or another run holds `key` (then returns the refusal's reason,
        REQUEST_ID_TAKEN for the key, and saves nothing). Counting, checking the key and saving
        are one step for every process sharing the store: two starts at the same instant cannot
        both pass a limit or both take a key. Blocking on PostgreSQL (`insert_run` is the
        event loop's way in); Unavailable when the store did not take it (nothing was saved),
        StartInDoubt when it cannot tell whether the insert committed."""

    async def insert_run(
        self, run: run_pb2.Run, run_id: str, limits: ActiveLimits, key: StartKey | None = None
    ) -> str | None:
        """`insert_run_within` without holding the event loop meanwhile."""

    async def find_start(self, key: StartKey) -> KeyedRun | None:
        """The run `key` names (created since `key.since_us`, or still active), if any."""

    async def run_saved(self, run_id: str) -> bool:
        """Whether the run's row exists (settles a StartInDoubt)."""

    async def forget_request_ids(self, before_us: int) -> int:
        """Frees the request ids of ended runs and sessions created before `before_us`
        (expired keys); returns how many."""

    def get_run(self, run_id: str, tenant: str | None = None) -> run_pb2.Run | None: ...

    def run_tenant(self, run_id: str) -> str | None: ...

    def list_runs(
        self,
        limit: int,
        before: tuple[int, str] | None,
        states: Iterable[int],
        kind: int,
        tenant: str | None = None,
    ) -> list[run_pb2.Run]: ...

    def count_runs(self, states: Iterable[int], kind: int, tenant: str | None = None) -> int:
        """How many runs `list_runs` would return with no limit and no cursor."""

    def orphans(self) -> list[Orphan]:
        """Active runs that no running process executes (on SQLite, whose file one process
        owns: every active run), oldest first: what a starting process must close."""

    def count_active(self, tenant: str | None = None) -> int:
        """Active runs in the store (of every process sharing it), of `tenant` when given."""

    def claim_orphan(self, run_id: str, generation: int | None = None) -> int | None:
        """Makes this process the owner of an active run that no running process executes;
        returns its new owner generation: how many times the run was taken over, this time
        included. None when it is nobody's no longer (another process claimed it first), or,
        given the `generation` it was seen in, when it was claimed since (even by a process
        that is gone again): only the claimant closes or resumes it, so its events are written
        once. From then on every write to the run carries its owner and generation, and writes
        of an earlier owner or generation are refused (fencing)."""

    def taken_over(self, run_ids: Iterable[str]) -> list[str]:
        """Of these runs (executed here), those another process took over meanwhile."""

    def fenced_out(self, run_id: str) -> bool:
        """A write of this process to the run was refused since another process took it over
        (known without a query, as soon as the refused write was committed)."""

    def announce(self, address: str, role: str, capacity: int = 0) -> None:
        """Publishes where other processes reach this one (`host:port` of its gRPC edge) for
        calls they relay to it, its role (all, api, worker) and the runs it may hold (slots
        plus queue); a no-op where no other process can be."""

    def keep_presence(self) -> bool:
        """Checks that this process still holds what tells others it lives (its PostgreSQL
        presence lock), taking it again when it was dropped; True when it did. Unavailable
        while the store cannot be reached. Blocking: call it from a thread."""

    def presence_epoch(self) -> int:
        """How many times this process had to take its presence again: while it was gone,
        others may have seen its runs as nobody's, so what this process saw then is stale."""

    def unreachable_for(self) -> float:
        """Seconds this process has not reached its store (0.0 while it does; always 0.0 on
        SQLite). Meanwhile reads fail at once with Unavailable."""

    def worker_loads(self) -> list[WorkerLoad]:
        """Every live process that executes runs (role all or worker), ordered the same way in
        every process (by presence key); empty where no other process can be."""

    def pick_worker(self) -> str | None:
        """The address of the live process that executes runs (role all or worker) with the
        fewest active runs, or None when there is none."""

    def shared_secret(self, name: str) -> str | None:
        """A random secret every process sharing this store reads alike, made once by the
        first that asks; None where only one process uses the store (SQLite)."""

    def executor_address(self, run_id: str) -> str | None:
        """The announced address of the live process executing an active run, or None."""

    def append_event(self, run_id: str, event: run_event_pb2.RunEvent) -> None: ...

    def events_after(self, run_id: str, after: int, limit: int) -> list[run_event_pb2.RunEvent]: ...

    def last_events(self, run_id: str, count: int) -> list[run_event_pb2.RunEvent]: ...

    def save_checkpoint(self, run_id: str, part: str, body: str) -> None:
        """Keeps `body` (JSON) as one part of the run's checkpoint, replacing that part: where
        its agent was, so a process taking the run over continues from there. Parts let an agent
        write once what does not change (a fetched page) and rewrite only the rest. Fenced like
        events: once another live process took the run over, this one's parts are not written."""

    def load_checkpoint(self, run_id: str) -> dict[str, str]:
        """The run's checkpoint, part -> body; empty when it has none."""

    def delete_checkpoint(self, run_id: str) -> None:
        """Drops every part of the run's checkpoint (the run ended); fenced like
        `save_checkpoint`. `delete_run` drops them too."""

    def record_side_effect(self, run_id: str, effect: run_event_pb2.SideEffect) -> None:
        """Appends an entry (at its `number`) to the run's side-effect journal: something its
        browser did that may change state elsewhere. Fenced like events: once another live
        process took the run over, not written, and `fenced_out` says so."""

    def side_effects(self, run_id: str) -> list[run_event_pb2.SideEffect]:
        """The run's side-effect journal in order (every attempt's); empty when it has none."""

    def save_interaction(
        self,
        interaction: interaction_pb2.Interaction,
        ids: tuple[str, str],
        digest: bytes | None = None,
    ) -> None:
        """Inserts or updates an interaction (ids: its id, its run's); `digest`: of the answer
        it accepted (kept once given, whatever later saves say)."""

    def answer_record(self, interaction_id: str) -> AnswerRecord | None:
        """What is kept of the interaction's answer and attempt; None when it does not exist."""

    def lose_interactions(self, run_id: str) -> None:
        """Marks every interaction of the run lost: the attempt that asked them was lost with
        its replica (the run's claimant says so, after its claim; fenced like events)."""

    def lost_interactions(
        self, run_id: str
    ) -> list[tuple[interaction_pb2.Interaction, AnswerRecord]]:
        """The run's lost interactions its resumed run has not asked again yet, oldest first."""

    def asked_again(self, ids: tuple[str, str], again_id: str) -> None:
        """Records that the run (ids: a lost interaction's id, its run's) asked the question
        again as `again_id`; fenced like events."""

    def get_interaction(
        self, interaction_id: str, tenant: str | None = None
    ) -> interaction_pb2.Interaction | None: ...

    def list_interactions(
        self,
        run_id: str | None,
        states: Sequence[int],
        limit: int,
        after: tuple[int, str] | None,
        tenant: str | None = None,
    ) -> list[interaction_pb2.Interaction]: ...

    def save_artifact(self, ids: tuple[str, str], content_type: str, data: bytes) -> None:
        """Keeps an artifact's bytes and metadata (ids: run id, artifact id): SQLite as a file
        in the data directory (one machine), PostgreSQL in the database, behind the writes
        queued before it, so every replica can read it and it outlives the process that made
        it. Fenced like events: once another process took the run over, not written."""

    def get_artifact(
        self, run_id: str, artifact_id: str, tenant: str | None = None
    ) -> tuple[str, int] | None: ...

    def read_artifact(self, ids: tuple[str, str], offset: int, size: int) -> bytes:
        """Up to `size` bytes of an artifact from `offset` (b"" past its end or once it is
        gone). Blocking, and safe in any thread: call it from a worker thread."""

    def forget_artifacts(self, run_id: str) -> None:
        """Removes the bytes a deleted run's artifacts may have left outside its rows (SQLite's
        files; nothing on PostgreSQL, where they go with the rows). Blocking: call it from a
        worker thread."""

    def leftover_artifacts(self) -> list[str]:
        """Ids of runs whose artifact bytes exist outside the rows of any run (a crash between
        deleting a run and its files leaves them), for `forget_artifacts`."""

    # recipes (browser/recipe_store.py): shared by every process sharing the store

    def active_recipe(self, key: str) -> str | None:
        """The body of the key's active recipe, if any."""

    def keep_recipe(self, recipe_id: str, key: str, body: str) -> bool:
        """Stores a recipe unless its key has an active one already (even one another process
        stored a moment ago); True when stored."""

    def recipe_replayed(self, recipe_id: str) -> None: ...

    def recipe_failed(self, recipe_id: str, retire_after: int) -> bool:
        """Counts one failure of the recipe (atomically: failures counted at once by several
        processes all count) and retires it once it has `retire_after`; True when it is retired
        now."""

    def recipe_counts(self, recipe_id: str) -> tuple[int, int, bool] | None:
        """(replays, failures, retired), None for an unknown recipe."""

    def finished_runs_oldest_first(self, limit: int) -> list[RunUsage]: ...

    def artifact_bytes(self) -> int: ...

    def delete_run(self, run_id: str) -> int | None:
        """Deletes a run's row, events, interactions, checkpoint, side-effect journal and
        artifacts (their rows, and on PostgreSQL their bytes) in one transaction; returns the
        bytes its artifacts weighed, None when there was no such run. SQLite's artifact files:
        `forget_artifacts`."""

    def reclaim_space(self) -> None: ...

    def event_feed(self) -> EventFeed | None:
        """Wake-ups for events other processes append; None when no other process can."""

    def flush(self) -> None: ...

    def when_committed(self, callback: Callable[[], None]) -> None:
        """Calls `callback` (on the event loop) once what this process wrote so far is
        committed, after the callbacks registered before it: SQLite, at its next commit (at
        once when nothing is pending); PostgreSQL, once the write-behind thread committed it."""

    def commit_marks(self) -> tuple[int, int]:
        """(mark of what was written so far, mark of what is committed): a write made when the
        first figure was m is committed once the second reaches m."""

    async def committed(self) -> None:
        """Returns once every write made so far is committed (other processes can read it),
        without blocking the event loop meanwhile."""

    def close(self) -> None: ...
