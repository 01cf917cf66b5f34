"""An A2A context is a session (core/sessions/): the first task of a context creates one, labelled
with the context, and every later task of that context runs in it, so a follow-up continues in
the same browser and knows the earlier tasks. A context whose session ended gets a new one. When
the server's limits on live sessions refuse one, the task runs without (as before sessions):
continuity is worth a browser kept open, not a refused task. So does a task that names a profile
(its own browser starts from it). The tasks a message names in referenceTaskIds must be of the
message's own context.

A message without a contextId gets one made from the sender and its messageId: the same message
sent again (a retry after a lost answer) lands in the same context and session, so it is the
same start and gets the same task (the messageId is the start's idempotency key). Tasks of a
new context sent at once share one session: the first runs in it, the others are refused as
any start in a busy session is."""

from __future__ import annotations

import uuid

from a2a.types import a2a_pb2 as a2a

from outrider.server.a2a_edge.links import Caller
from outrider.server.a2a_edge.parts import CONTEXT_LABEL
from outrider.server.core.errors import (
    FieldViolation,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
)
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.runs.starting import RunSpec
from outrider.server.core.sessions.manager import SessionManager
from outrider.v1 import session_pb2


def context_of(message: a2a.Message, caller: Caller) -> str:
    """The message's contextId, or the one made for it (see the module docstring)."""
    if message.context_id:
        return message.context_id
    sender = f"{caller.principal.tenant}/{caller.principal.id}/{message.message_id}"
    return uuid.uuid5(_CONTEXTS, sender).hex


_CONTEXTS = uuid.UUID("6f757472-6964-6572-2d63-6f6e74657874")  # "outrider-context"


class ContextSessions:
    def __init__(self, runs: RunManager, sessions: SessionManager | None) -> None:
        self._runs = runs
        self._sessions = sessions

    async def join(self, spec: RunSpec, message: a2a.Message, context: str, caller: Caller) -> None:
        """Puts the task's run in its context's session (unless the message names one). A task
        naming a profile runs outside it: its browser starts from the profile (and may save to
        it), which a session's shared browser cannot."""
        self._check_references(message, context, caller)
        if self._sessions is None or spec.options.session or spec.options.profile:
            return
        labels = {CONTEXT_LABEL: context}
        newest = self._sessions.newest_labelled(labels, spec.kind, caller.principal)
        if newest is not None and newest.state != session_pb2.SESSION_STATE_ENDED:
            spec.options.session = newest.name
            return
        # Tasks racing to open the context's session (or its next one) make one: the create's
        # request id names the context and the session it follows.
        follows = newest.name if newest is not None else "none"
        request_id = str(uuid.uuid5(_CONTEXTS, f"{context}/after/{follows}"))
        try:
            created = await self._sessions.create(
                spec.kind, "", (None, None), labels, "", caller.principal, request_id
            )
        except ResourceExhausted:
            return
        spec.options.session = created.session.name

    def _check_references(self, message: a2a.Message, context: str, caller: Caller) -> None:
        violations = []
        for index, task_id in enumerate(message.reference_task_ids):
            field = f"message.referenceTaskIds[{index}]"
            try:
                run = self._runs.get(task_id, caller.principal)
            except (NotFound, InvalidArgument):
                violations.append(FieldViolation(field, f"task {task_id!r} does not exist"))
                continue
            if run.labels.get(CONTEXT_LABEL) != context:
                violations.append(
                    FieldViolation(
                        field, f"task {task_id!r} is of another context than {context!r}"
                    )
                )
        if violations:
            raise InvalidArgument(violations)
