"""Idempotent creates: a caller's request id (AIP-155 on gRPC, the Idempotency-Key header on REST)
names one session of its principal and tenant, by the rules of runs' starts
(`runs.idempotent_starts`), so a create retried after an error whose outcome the caller cannot
know never holds a second browser.

- Same principal, same id, same request (`create_digest`): the session the first create made,
  while it is live and for the idempotency window (OUTRIDER_IDEMPOTENCY_TTL) after its creation.
- Same id, another request: ALREADY_EXISTS (IDEMPOTENCY_KEY_REUSED).
- The store enforces it (a unique index over tenant, principal and id), so it holds for creates
  racing on several replicas.
"""

from __future__ import annotations

import hashlib

from outrider.server.core import clock
from outrider.server.core.names import session_name
from outrider.server.core.principals import Principal
from outrider.server.core.request_ids import check_same_request
from outrider.server.core.sessions.checks import SessionSpec
from outrider.server.core.sessions.records import profile_of
from outrider.server.core.storage.contract import StartKey
from outrider.server.core.storage.session_contract import KeyedSession
from outrider.v1 import session_service_pb2


def create_key(
    spec: SessionSpec, principal: Principal, request_id: str, ttl_s: float
) -> StartKey | None:
    """The create's key, None without a request id."""
    if not request_id:
        return None
    since_us = clock.now_us() - int(ttl_s * 1_000_000)
    return StartKey(principal.tenant, principal.id, request_id, create_digest(spec), since_us)


def create_request(
    spec: SessionSpec, request_id: str = ""
) -> session_service_pb2.CreateSessionRequest:
    """The checked request as CreateSession's message, its durations filled in."""
    request = session_service_pb2.CreateSessionRequest(
        kind=spec.kind,  # type: ignore[arg-type]
        start_url=spec.start_url,
        labels=spec.labels,
        profile=profile_of(spec),
        request_id=request_id,
    )
    request.idle_timeout.FromNanoseconds(round(spec.idle_timeout * 1e9))
    request.max_life.FromNanoseconds(round(spec.max_life * 1e9))
    return request


def create_digest(spec: SessionSpec) -> str:
    """SHA-256 of what the create asks for, as checked (a duration left unset and the same
    duration given are one request). Deterministic: labels in order, defaults never written."""
    return hashlib.sha256(create_request(spec).SerializeToString(deterministic=True)).hexdigest()


def replayed_session(found: KeyedSession, key: StartKey) -> str:
    """The id of the session an earlier create with this key made, if it asked for the same."""
    made = (f"created {session_name(found.session_id)}", "session")
    check_same_request(key.request_id, (found.digest, key.digest), made)
    return found.session_id
