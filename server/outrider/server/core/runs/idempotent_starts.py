"""Idempotent starts: a caller's request id (AIP-155 on gRPC, the Idempotency-Key header on REST)
names one run of its principal and tenant for a while, so a start retried after an error whose
outcome the caller cannot know never runs the task twice.

- Same principal, same id, same request (`start_digest`) within the window: the same run,
  marked as a replay. Same id, different request: ALREADY_EXISTS (IDEMPOTENCY_KEY_REUSED).
- The store enforces it (a unique index over tenant, principal and id, see
  `storage.start_keys`), so it holds for starts racing on several replicas.
- A start is answered only once its run's record is committed, and the run executes only then.
  A caller that gave up first (after START_WAIT, or by leaving) was told the start failed: if
  the record commits later anyway, a run with a request id executes (a retry with the same id
  finds it, as the error says), and one without is ended at once as START_NOT_CONFIRMED, never
  executed (nothing could find it, so a retry would run the task a second time).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable

from google.protobuf.message import Message

from outrider.server.core import clock
from outrider.server.core.errors import Unavailable
from outrider.server.core.names import run_name
from outrider.server.core.principals import Principal
from outrider.server.core.request_ids import check_same_request
from outrider.server.core.secrets.redaction import mask_secret_data
from outrider.server.core.storage.contract import KeyedRun, StartKey, Store
from outrider.v1 import params_pb2, run_pb2

log = logging.getLogger(__name__)

NOT_CONFIRMED = "START_NOT_CONFIRMED"
START_WAIT = 10.0  # seconds a caller waits for its new run's record to commit
_SETTLE_DELAYS = (0.5, 1.0, 2.0, 4.0, *(8.0,) * 30)  # about four minutes in all


def start_key(
    kind: int,
    params: params_pb2.AutomateParams | params_pb2.ResearchParams,
    options: params_pb2.RunOptions,
    principal: Principal,
    request_id: str,
    ttl_s: float,
) -> StartKey | None:
    """The start's key, None without a request id."""
    if not request_id:
        return None
    since_us = clock.now_us() - int(ttl_s * 1_000_000)
    digest = start_digest(kind, params, options)
    return StartKey(principal.tenant, principal.id, request_id, digest, since_us)


def start_digest(
    kind: int,
    params: params_pb2.AutomateParams | params_pb2.ResearchParams,
    options: params_pb2.RunOptions,
) -> str:
    """SHA-256 of what the start asks for: kind, parameters and options, secret data masked (a
    secret is never stored, not even hashed: a retry that changes only a secret is the same
    request)."""
    arm = "automate" if isinstance(params, params_pb2.AutomateParams) else "research"
    request = run_pb2.Run(kind=kind, options=options)  # type: ignore[arg-type]
    getattr(request, arm).CopyFrom(params)
    if request.HasField("automate") and request.automate.HasField("data"):
        request.automate.data.CopyFrom(mask_secret_data(request.automate.data)[0])
    return hashlib.sha256(_canonical(request)).hexdigest()


def _canonical(message: Message) -> bytes:
    # Deterministic: map entries (a Struct's keys) in order; defaults are never written, so a
    # field added to the contract later leaves the digests of requests without it unchanged.
    return message.SerializeToString(deterministic=True)


def replayed_run(found: KeyedRun, key: StartKey) -> str:
    """The id of the run an earlier start with this key made, if it asked for the same."""
    made = (f"started {run_name(found.run_id)}", "run")
    check_same_request(key.request_id, (found.digest, key.digest), made)
    return found.run_id


def not_confirmed_message(keyed: bool) -> str:
    """Why a caller that waited START_WAIT for its run's record gets UNAVAILABLE."""
    waited = f"the store did not confirm the new run's record within {START_WAIT:g}s"
    if keyed:
        return (
            f"{waited}; it may still be saved and then runs: retry with the same request id, "
            "which returns that run or starts it once"
        )
    return f"{waited}; the run will not execute (send a request id to retry safely)"


async def answer_when_saved(
    saving: asyncio.Task[str | None], keyed: bool, give_up: Callable[[], None]
) -> str | None:
    """Waits (at most START_WAIT) for a new run's save: None once its record is committed, or
    the store's refusal. A caller that stops waiting first is one that `give_up` marks."""
    try:
        async with asyncio.timeout(START_WAIT):
            return await asyncio.shield(saving)
    except TimeoutError:
        if saving.done():
            return saving.result()
        give_up()
        raise Unavailable(not_confirmed_message(keyed), NOT_CONFIRMED) from None
    except asyncio.CancelledError:
        if not saving.done():
            give_up()
        raise


async def settle(store: Store, run_id: str) -> bool:
    """Whether a run whose insert's outcome is unknown was saved, asking until the store
    answers (a few minutes at most; then it counts as not saved, and a row that did land is
    closed by failover once this replica stops)."""
    for delay in _SETTLE_DELAYS:
        try:
            return await store.run_saved(run_id)
        except Unavailable:
            await asyncio.sleep(delay)
    log.error("could not learn whether %s was saved; it is not executed", run_name(run_id))
    return False
