"""A stream of run events outlives the check that admitted it: it may follow a run for hours. So
before each batch (and each heartbeat) it goes out, the caller's credential is checked again
against the current keys: a key removed from the key file (then SIGHUP), a console session that
expired, or a principal that lost the read scope or moved tenant ends the stream with an error
at the next batch or heartbeat, and no new answer link goes to it. Answer links are added for
the principal as it is now.

The edges know how their caller authenticated; each hands `watch_batches` a `Reauthenticate`
(a callable that returns the principal the same credential names now, or raises
Unauthenticated). Without one, the principal admitted at the start holds (internal callers).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Callable

from outrider.server.core.errors import Unauthenticated
from outrider.server.core.events.log import WatchBatch
from outrider.server.core.interactions.answer_links import AnswerLinks
from outrider.server.core.principals import Principal, Scope
from outrider.v1 import run_event_pb2

Reauthenticate = Callable[[], Principal]
REVOKED = "CREDENTIAL_REVOKED"
_REVOKED_MESSAGE = (
    "the key or session this stream was opened with is no longer valid (removed, replaced or "
    "expired): authenticate again"
)


def current_principal(admitted: Principal, reauthenticate: Reauthenticate | None) -> Principal:
    """The principal `admitted`'s credential names now; Unauthenticated (CREDENTIAL_REVOKED)
    when it names none, or another principal or tenant."""
    if reauthenticate is None:
        return admitted
    try:
        now = reauthenticate()
    except Unauthenticated:
        raise Unauthenticated(_REVOKED_MESSAGE, reason=REVOKED) from None
    if (now.id, now.tenant) != (admitted.id, admitted.tenant):
        raise Unauthenticated(_REVOKED_MESSAGE, reason=REVOKED)
    return now


async def checked(
    batches: AsyncGenerator[WatchBatch, None],
    created_by: str,
    admitted: Principal,
    reauthenticate: Reauthenticate | None,
    links: AnswerLinks | None,
) -> AsyncGenerator[WatchBatch, None]:
    """`batches` of a run `created_by` someone, each delivered only while the caller's credential
    still holds (and may still read the run); request events carry answer links when `links`
    are wanted and the caller may be shown them now."""
    async with contextlib.aclosing(batches):
        async for batch in batches:
            principal = current_principal(admitted, reauthenticate)
            if created_by != principal.id:
                principal.require(Scope.RUNS_READ)
            if links is not None and not isinstance(batch, run_event_pb2.Heartbeat):
                batch = links.on_events(batch, principal)
            yield batch
