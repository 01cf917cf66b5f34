"""Who is calling: a principal (id, tenant, scopes, limits) that the edges authenticate and the
core checks on every read and write.

A principal sees only the runs of its own tenant (and their events, interactions and artifacts);
an admin principal sees every tenant. Scopes say what it may do with what it sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from outrider.server.core.errors import PermissionDenied

DEFAULT_TENANT = "default"


class Scope(StrEnum):
    """The one table of scopes: key files are checked against it, the access table
    (security/access.py) and the console use it, and the client's copy (outrider.client.keys,
    for `outrider keys create`) and README's table are tested against it."""

    RUNS_START = "runs.start"
    RUNS_READ = "runs.read"  # runs, their events and artifacts, interactions
    INTERACTIONS_ANSWER = "interactions.answer"
    RUNS_CANCEL = "runs.cancel"
    RUNS_DELETE = "runs.delete"  # finished runs with their events, interactions and artifacts
    BROWSER_CONTROL = "browser.control"  # take over a run's browser, drive it, hand it back
    PROFILES_MANAGE = "profiles.manage"  # the tenant's profiles: create, list, delete, log in
    CREDENTIALS_MANAGE = "credentials.manage"  # the tenant's credentials: set, list, delete
    WEBHOOKS_MANAGE = "webhooks.manage"  # the tenant's webhook endpoints and their deliveries
    ADMIN = "admin"  # every scope, in every tenant


ALL_SCOPES = frozenset(Scope)
CALLER_SCOPES = ALL_SCOPES - {Scope.ADMIN}


@dataclass(frozen=True)
class Limits:
    """Per-principal quotas; None takes the server's default for principals."""

    max_concurrent_runs: int | None = None
    starts_per_minute: float | None = None
    start_burst: int | None = None


@dataclass(frozen=True)
class Principal:
    id: str
    tenant: str
    scopes: frozenset[Scope]
    limits: Limits = field(default_factory=Limits)
    # Authenticated by another replica, which relayed the call here (see security/relay.py):
    # such a call is served here or refused, never relayed again.
    relayed: bool = False
    # The models its tenant may name in options.model (name, spec), from the key file's
    # tenant table; None: the server's offer (OUTRIDER_MODELS).
    models: tuple[tuple[str, str], ...] | None = None

    def offered_models(self, server_offer: Mapping[str, str]) -> Mapping[str, str]:
        return server_offer if self.models is None else dict(self.models)

    @property
    def is_admin(self) -> bool:
        return Scope.ADMIN in self.scopes

    @property
    def tenant_filter(self) -> str | None:
        """The tenant every query must be limited to; None for an admin (all tenants)."""
        return None if self.is_admin else self.tenant

    def sees(self, tenant: str) -> bool:
        return self.is_admin or tenant == self.tenant

    def require(self, scope: Scope) -> None:
        if scope not in self.scopes and not self.is_admin:
            raise PermissionDenied(f"principal {self.id!r} lacks the {scope.value!r} scope")


# When authentication is off, every caller is this one trusted principal.
ANONYMOUS = Principal("anonymous", DEFAULT_TENANT, ALL_SCOPES)
# The server acting on its own behalf (the retention sweep): every tenant.
SYSTEM = Principal("outrider", DEFAULT_TENANT, frozenset({Scope.ADMIN}))


def parse_scopes(names: list[str], where: str) -> frozenset[Scope]:
    """Scope names from configuration; an unknown one is a configuration error."""
    known = [s.value for s in Scope]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"{where}: unknown scopes {unknown}; known: {', '.join(known)}")
    return frozenset(Scope(n) for n in names)


def scope_names(principal: Principal) -> list[str]:
    """The principal's scopes in the table's order."""
    return [scope.value for scope in Scope if scope in principal.scopes]
