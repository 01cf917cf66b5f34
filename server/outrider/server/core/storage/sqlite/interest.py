"""Which notifications a tenant's enabled webhook endpoints want, kept in memory so that a run's
end (or a question) of a tenant nobody listens to writes and wakes nothing. Exact because one
process owns the SQLite file: every change of an endpoint goes through this store, which forgets
what it knew at each one; a tenant's entry is read again, in one query, when next asked."""

from __future__ import annotations

from collections.abc import Callable, Iterable

_EVERY = "*"  # an endpoint that wants every type

# (event_types as stored, run_id) of a tenant's enabled endpoints
Rows = Iterable[tuple[str, str | None]]


class EndpointInterest:
    def __init__(self, read: Callable[[str], Rows]) -> None:
        self._read = read  # the enabled endpoints of a tenant
        # tenant -> run id (None: every run of the tenant) -> the types wanted
        self._tenants: dict[str, dict[str | None, set[str]]] = {}

    def wants(self, tenant: str, type_: str, run_id: str | None) -> bool:
        """What webhook_rows' ADD_MESSAGE decides, without a query: an enabled endpoint of the
        tenant wants `type_`, and follows every run or `run_id`."""
        wanted = self._tenants.get(tenant)
        if wanted is None:
            wanted = self._tenants[tenant] = _by_run(self._read(tenant))
        for scope in (None, run_id) if run_id is not None else (None,):
            types = wanted.get(scope, ())
            if _EVERY in types or type_ in types:
                return True
        return False

    def forget(self) -> None:
        """An endpoint changed: every tenant is read again when next asked."""
        self._tenants.clear()


def _by_run(rows: Rows) -> dict[str | None, set[str]]:
    wanted: dict[str | None, set[str]] = {}
    for event_types, run_id in rows:
        wanted.setdefault(run_id, set()).update(event_types.split() or (_EVERY,))
    return wanted
