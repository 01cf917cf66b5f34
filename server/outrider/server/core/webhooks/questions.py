"""Notices of questions (interactions) for the outbox: one when a question starts waiting, one
when it is resolved (answered, expired or cancelled). The interactions room calls these in the
transaction that saves the interaction."""

from __future__ import annotations

from collections.abc import Callable

from outrider.server.core.webhooks.notices import question_resolved, question_waiting
from outrider.server.core.webhooks.outbox import Outbox
from outrider.v1 import interaction_pb2 as ip


class QuestionNotices:
    """`tenant_of(run_id)`: the tenant of a run (from memory for runs executed here)."""

    def __init__(self, outbox: Outbox, tenant_of: Callable[[str], str | None]) -> None:
        self._outbox = outbox
        self._tenant_of = tenant_of

    def waiting(self, interaction: ip.Interaction) -> None:
        tenant = self._tenant_of(interaction.run.removeprefix("runs/"))
        if tenant is not None:
            self._outbox.report(question_waiting(interaction, tenant))

    def resolved(self, interaction: ip.Interaction) -> None:
        tenant = self._tenant_of(interaction.run.removeprefix("runs/"))
        if tenant is not None:
            self._outbox.report(question_resolved(interaction, tenant))


class NoNotices(QuestionNotices):
    """Questions of a process that reports nothing (unit tests of the interactions)."""

    def __init__(self) -> None:
        pass

    def waiting(self, interaction: ip.Interaction) -> None:
        pass

    def resolved(self, interaction: ip.Interaction) -> None:
        pass
