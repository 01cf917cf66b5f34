"""A browser run's side-effect journal: what it did that may change state outside it (a form
sent, a non-GET request, a download, an upload, an approval granted), in the store, so that a
replica taking the run over after its executor was lost knows whether starting the task again
would repeat something (see `resume_gate`).

Entries are written ahead: `record` returns only once the entry is committed, under the run's
owner fence, and the caller lets the side effect happen only then. A process killed between
the two leaves an entry for something that may not have happened: the journal errs on the side
of "it happened". A download, which the page starts, is journaled once it arrived (`note`), and
committed before the run's next step (`settled`). Each entry is also a `side_effect` event, so
watchers see which of the run's actions were side effects as they happen.
"""

from __future__ import annotations

from outrider.server.core.errors import Unavailable
from outrider.server.core.events.log import EventLog
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.storage import Store
from outrider.server.telemetry import metrics
from outrider.v1 import run_event_pb2 as rp


class SideEffectRefused(Exception):
    """The entry could not be committed (the store is unreachable, or another replica took the
    run over): the side effect must not happen. The message says why, for the agent's model."""


class SideEffectJournal:
    """The journal of one run as its executor writes it. `earlier`: the entries of attempts
    before this one (a run taken over); `attempt`: 0 for the first execution, then the takeover
    count."""

    def __init__(
        self,
        store: Store,
        log: EventLog,
        run_id: str,
        redactor: Redactor,
        attempt: int = 0,
        earlier: list[rp.SideEffect] | None = None,
    ) -> None:
        self._store = store
        self._log = log
        self._run_id = run_id
        self._redactor = redactor
        self._attempt = attempt
        self.earlier = list(earlier or [])
        self.entries: list[rp.SideEffect] = []  # this attempt's
        self._next = max((e.number for e in self.earlier), default=0) + 1
        self._unsettled = False

    @property
    def recorded(self) -> int:
        """Entries this attempt wrote."""
        return len(self.entries)

    async def record(self, effect: rp.SideEffect) -> rp.SideEffect:
        """Journals `effect` and returns it once committed; SideEffectRefused when it could not
        be, and the side effect must then not happen."""
        entry = self.note(effect)
        try:
            await self.settled()
        except Unavailable as error:
            raise SideEffectRefused(
                f"the run's store could not record it first ({error.message})"
            ) from None
        if self._store.fenced_out(self._run_id):
            raise SideEffectRefused("another replica took this run over")
        return entry

    def note(self, effect: rp.SideEffect) -> rp.SideEffect:
        """Journals what already happened, without waiting for the commit (`settled` does)."""
        entry = rp.SideEffect()
        entry.CopyFrom(effect)
        entry.number, entry.attempt = self._next, self._attempt
        self._next += 1
        self._redactor.message(entry)
        self.entries.append(entry)
        self._store.record_side_effect(self._run_id, entry)
        if self._log.is_open(self._run_id):
            self._log.append(self._run_id, entry)
        self._unsettled = True
        metrics.side_effect(rp.SideEffectKind.Name(entry.kind))
        return entry

    async def settled(self) -> None:
        """Returns once every entry is committed (Unavailable when the store cannot say so)."""
        if self._unsettled:
            await self._store.committed()
            self._unsettled = False


def describe(effects: list[rp.SideEffect]) -> str:
    """The entries in words, one per line, for a person and a model alike."""
    return "\n".join(f"{number}. {line(effect)}" for number, effect in enumerate(effects, 1))


def line(effect: rp.SideEffect) -> str:
    where = f" ({effect.method} {effect.url})" if effect.method else ""
    if not where and effect.url:
        where = f" ({effect.url})"
    when = f" at {effect.iteration_id}" if effect.iteration_id else ""
    attempt = f", attempt {effect.attempt + 1}" if effect.attempt else ""
    return f"{effect.description or 'a side effect'}{where}{when}{attempt}"
