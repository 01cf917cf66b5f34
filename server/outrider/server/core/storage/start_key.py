"""The idempotency key of a run's start or a session's create, as the store takes it (see
`start_keys` for runs, `session_rows` for sessions)."""

from __future__ import annotations

from dataclasses import dataclass

# The refusal of an insert when another run (or session) of the key's principal holds its
# request id.
REQUEST_ID_TAKEN = "REQUEST_ID_TAKEN"


@dataclass(frozen=True)
class StartKey:
    """A start's (or create's) idempotency key: the caller's request id, scoped to its principal
    and tenant, and the digest of what it asked for. It names one run (session) until `since_us`
    passes its creation (expired) unless it is still active (live); deleting a run frees it at
    once."""

    tenant: str
    principal: str
    request_id: str
    digest: str
    since_us: int  # keys of runs created before this instant have expired (once they ended)
