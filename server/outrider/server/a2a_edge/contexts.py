"""An A2A context is a session (core/sessions/): the first task of a context creates one, labelled
with the context, and every later task of that context runs in it, so a follow-up continues in
the same browser and knows the earlier tasks. A context whose session ended gets a new one. The
tasks a message names in referenceTaskIds must be of the message's own context."""

from __future__ import annotations

from a2a.types import a2a_pb2 as a2a

from outrider.server.a2a_edge.links import Caller
from outrider.server.a2a_edge.parts import CONTEXT_LABEL
from outrider.server.core.errors import FieldViolation, InvalidArgument, NotFound
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.runs.starting import RunSpec
from outrider.server.core.sessions.manager import SessionManager


class ContextSessions:
    def __init__(self, runs: RunManager, sessions: SessionManager | None) -> None:
        self._runs = runs
        self._sessions = sessions

    async def join(self, spec: RunSpec, message: a2a.Message, context: str, caller: Caller) -> None:
        """Puts the task's run in its context's session (unless the message names one)."""
        self._check_references(message, context, caller)
        if self._sessions is None or spec.options.session:
            return
        labels = {CONTEXT_LABEL: context}
        session = self._sessions.find_live(labels, spec.kind, caller.principal)
        if session is None:
            session = await self._sessions.create(
                spec.kind, "", (None, None), labels, "", caller.principal
            )
        spec.options.session = session.name

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
