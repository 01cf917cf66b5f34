"""Writing notifications: a notice goes into the store's outbox in the transaction of the state
change it reports (the caller wraps both in `Store.together()`), and the dispatcher of this
process is woken once it is committed."""

from __future__ import annotations

from collections.abc import Callable

from outrider.server.core import clock
from outrider.server.core.storage import Store
from outrider.server.core.webhooks.notices import Notice


class Outbox:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._wake: Callable[[], None] = lambda: None

    def on_commit(self, wake: Callable[[], None]) -> None:
        """Calls `wake` once each reported notice is committed (the dispatcher's `wake`)."""
        self._wake = wake

    def report(self, notice: Notice) -> None:
        """Writes the notice for every endpoint that wants it (nothing, and no wake, when the
        store knows none does); a notice about a run is fenced like the run's rows (a replica
        that lost the run writes none)."""
        if not self._store.wants_message(notice.tenant, notice.type, notice.run_id):
            return
        self._store.add_message(notice.message(clock.now_us()), fenced=notice.run_id is not None)
        self._store.when_committed(self._wake)
