"""The key file: principals (id, tenant, scopes, optional limits) and how each authenticates.

TOML (or YAML with the same shape):

    [[keys]]
    id = "billing-worker"
    tenant = "billing"
    scopes = ["runs.start", "runs.read", "interactions.answer", "runs.cancel"]
    hash = "sha256:<64 hex digits>"      # of the whole key; the key itself is never stored
    certificate = "billing-worker"       # optional: a client certificate with this CN
    limits = { max_concurrent_runs = 2, starts_per_minute = 30, start_burst = 5 }

    [tenants.billing]                    # optional: the models this tenant's callers (keys,
    models = { fast = "openai:gpt-4.1-mini" }   # tokens) may name, instead of OUTRIDER_MODELS

Keys are 256 random bits, so SHA-256 is enough to make a leaked file useless without slowing
every call down; `outrider keys create` makes one, prints it once and appends its entry.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from outrider.client.keys import key_hash, new_key
from outrider.server.core.principals import (
    CALLER_SCOPES,
    DEFAULT_TENANT,
    Limits,
    Principal,
    parse_scopes,
)
from outrider.server.settings.model_choices import offer

__all__ = ["KeyTable", "key_hash", "legacy_table", "load_key_file", "new_key"]
_HASH = re.compile(r"^sha256:[0-9a-f]{64}$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$")


Offer = tuple[tuple[str, str], ...]  # the models a tenant's callers may name: (name, spec)


@dataclass(frozen=True)
class KeyTable:
    by_hash: Mapping[str, Principal]
    by_certificate: Mapping[str, Principal]  # client-certificate common name -> principal
    offers: Mapping[str, Offer] = field(default_factory=dict)  # tenant -> its models

    def __len__(self) -> int:
        return len(self.by_hash) + len(self.by_certificate)


def legacy_table(api_keys: Sequence[str]) -> KeyTable:
    """OUTRIDER_API_KEYS: every key a principal of the default tenant with every caller scope."""
    return KeyTable(
        {
            key_hash(key): Principal(f"api-key-{n}", DEFAULT_TENANT, CALLER_SCOPES)
            for n, key in enumerate(api_keys, 1)
        },
        {},
    )


def load_key_file(path: Path) -> KeyTable:
    """Parses and checks the whole file; raises ValueError naming the bad entry."""
    text = path.read_text()
    data = yaml.safe_load(text) if path.suffix in (".yaml", ".yml") else tomllib.loads(text)
    data = data or {}
    if not isinstance(data, dict) or set(data) - {"keys", "tenants"}:
        raise ValueError(f"{path}: the file holds 'keys' and, optionally, 'tenants'")
    entries = data.get("keys", [])
    if not isinstance(entries, list):
        raise ValueError(f"{path}: 'keys' must be a list of entries")
    offers = _tenant_models(data.get("tenants", {}), f"{path}: tenants")
    by_hash: dict[str, Principal] = {}
    by_cert: dict[str, Principal] = {}
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"{path}: keys[{index}]"
        principal, digest, certificate = _entry(entry, where)
        if principal.id in seen:
            raise ValueError(f"{where}: duplicate id {principal.id!r}")
        seen.add(principal.id)
        if digest in by_hash or certificate in by_cert:
            raise ValueError(f"{where}: its key or certificate already belongs to another entry")
        if digest:
            by_hash[digest] = principal
        if certificate:
            by_cert[certificate] = principal
    return KeyTable(by_hash, by_cert, offers)


def _entry(entry: Any, where: str) -> tuple[Principal, str, str]:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: must be a table")
    unknown = set(entry) - {"id", "tenant", "scopes", "hash", "certificate", "limits"}
    if unknown:
        raise ValueError(f"{where}: unknown fields {sorted(unknown)}")
    ident, tenant = _name(entry, "id", where), _name(entry, "tenant", where)
    digest = str(entry.get("hash", ""))
    certificate = str(entry.get("certificate", ""))
    if digest and not _HASH.match(digest):
        raise ValueError(f"{where}: hash must be 'sha256:' and 64 lowercase hex digits")
    if not digest and not certificate:
        raise ValueError(f"{where}: needs a hash, a certificate, or both")
    scopes = entry.get("scopes", [])
    if not isinstance(scopes, list) or not scopes:
        raise ValueError(f"{where}: scopes must be a non-empty list")
    limits = _limits(entry.get("limits", {}), where)
    principal = Principal(ident, tenant, parse_scopes([str(s) for s in scopes], where), limits)
    return principal, digest, certificate


def _tenant_models(tenants: Any, where: str) -> dict[str, Offer]:
    """tenant -> the models its keys may name, from `[tenants.<name>] models = {...}`."""
    if not isinstance(tenants, dict):
        raise ValueError(f"{where}: must be a table of tenants")
    offers = {}
    for tenant, table in tenants.items():
        at = f"{where}.{tenant}"
        if not isinstance(tenant, str) or not _NAME.match(tenant):
            raise ValueError(f"{at}: a tenant is 1-128 letters, digits, '.', '_', '@' or '-'")
        if not isinstance(table, dict) or set(table) != {"models"}:
            raise ValueError(f"{at}: a tenant's table holds 'models' (a table or a list)")
        offers[tenant] = tuple(offer(table["models"], at).items())
    return offers


def _name(entry: dict[str, Any], field: str, where: str) -> str:
    value = entry.get(field)
    if not isinstance(value, str) or not _NAME.match(value):
        raise ValueError(f"{where}: {field} must be 1-128 letters, digits, '.', '_', '@' or '-'")
    return value


_LIMITS = ("max_concurrent_runs", "starts_per_minute", "start_burst")


def _limits(raw: Any, where: str) -> Limits:
    if not isinstance(raw, dict) or set(raw) - set(_LIMITS):
        raise ValueError(f"{where}: limits may set {', '.join(_LIMITS)}")
    if any(not isinstance(v, int | float) or isinstance(v, bool) or v < 0 for v in raw.values()):
        raise ValueError(f"{where}: limits must be non-negative numbers")
    rate = raw.get("starts_per_minute")
    return Limits(
        max_concurrent_runs=_int_or_none(raw.get("max_concurrent_runs")),
        starts_per_minute=None if rate is None else float(rate),
        start_burst=_int_or_none(raw.get("start_burst")),
    )


def _int_or_none(value: float | None) -> int | None:
    return None if value is None else int(value)
