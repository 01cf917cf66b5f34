"""A verified token's claims become a principal (id, tenant, scopes), the same kind the key file
makes, so tenants, quotas and the audit fields work as they do for keys.

- id: the OUTRIDER_OIDC_ID_CLAIM (`sub`);
- tenant: the OUTRIDER_OIDC_TENANT_CLAIM;
- scopes: the Outrider scopes among the token's granted scopes (`scope` / `scp`), or, when it
  has OUTRIDER_OIDC_GROUPS_CLAIM, the scopes OUTRIDER_OIDC_GROUP_SCOPES gives its values. A
  token with both (a person's token for an application) gets what both allow: what the person
  may do, as far as they let the application do it.

With nothing mapped (no scope, no tenant), the strict mode refuses; the default mode gives
OUTRIDER_OIDC_DEFAULT_SCOPES in OUTRIDER_OIDC_DEFAULT_TENANT.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from outrider.server.core.errors import PermissionDenied, Unauthenticated
from outrider.server.core.principals import Principal, Scope, parse_scopes
from outrider.server.settings.identity import OidcSettings

NOT_MAPPED = "IDENTITY_NOT_MAPPED"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@|:+-]{0,199}$")
_KNOWN = frozenset(s.value for s in Scope)


class ClaimMapping:
    def __init__(self, settings: OidcSettings) -> None:
        self._settings = settings
        self._groups = {
            group: parse_scopes(names, f"OUTRIDER_OIDC_GROUP_SCOPES[{group!r}]")
            for group, names in settings.group_scopes.items()
        }
        self._default_scopes = parse_scopes(
            list(settings.default_scopes), "OUTRIDER_OIDC_DEFAULT_SCOPES"
        )
        self._strict = settings.mapping == "strict"

    def principal(self, claims: dict[str, Any]) -> Principal:
        """The principal of verified `claims`; PermissionDenied (IDENTITY_NOT_MAPPED) when the
        strict mode finds no scope or no tenant."""
        ident = claim(claims, self._settings.id_claim)
        if not isinstance(ident, str | int) or not _NAME.match(str(ident)):
            raise Unauthenticated("the token names no principal", reason="TOKEN_INVALID")
        return Principal(str(ident), self._tenant(claims), self._scopes(claims))

    def _tenant(self, claims: dict[str, Any]) -> str:
        tenant = claim(claims, self._settings.tenant_claim)
        if isinstance(tenant, str) and _NAME.match(tenant):
            return tenant
        if self._strict:
            raise PermissionDenied(
                f"the identity names no tenant (claim {self._settings.tenant_claim!r})",
                reason=NOT_MAPPED,
            )
        return self._settings.default_tenant

    def _scopes(self, claims: dict[str, Any]) -> frozenset[Scope]:
        granted = _granted(claims, self._settings.scope_claim)
        groups = claim(claims, self._settings.groups_claim)
        scopes = granted
        if groups is not None:
            entitled = self._mapped(_values(groups))
            # a token granting no Outrider scope (openid, email) does not narrow the groups'
            scopes = entitled & granted if granted else entitled
        if scopes:
            return scopes
        if self._strict:
            raise PermissionDenied(
                "the identity's groups and scopes map to no Outrider scope", reason=NOT_MAPPED
            )
        return self._default_scopes

    def _mapped(self, groups: Iterable[str]) -> frozenset[Scope]:
        return frozenset(s for g in groups for s in self._groups.get(g, ()))


def claim(claims: dict[str, Any], path: str) -> Any:
    """A claim by name, or by a dotted path into nested objects (realm_access.roles); a name
    that itself holds dots (a URL-named claim) is tried first."""
    if path in claims:
        return claims[path]
    value: Any = claims
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _values(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _granted(claims: dict[str, Any], name: str) -> frozenset[Scope]:
    """The Outrider scopes among the granted ones (other scopes, such as openid, are left)."""
    values = _values(claims.get(name)) + _values(claims.get("scp"))
    return frozenset(Scope(v) for v in values if v in _KNOWN)
