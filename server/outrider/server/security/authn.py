"""Authentication shared by every edge: a bearer key, an access token of the company's IdP or a
client certificate becomes a principal.

The keyring holds the principals of the key file plus the OUTRIDER_API_KEYS shortcut, and, when
an issuer is configured, the IdP's tokens (security/identity.py). `reload()`
(on SIGHUP) swaps in a freshly parsed file in one assignment, so calls already admitted finish
(open streams check their credential again at each batch: core/runs/stream_checks.py), and a broken
file leaves the previous keys in force.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from outrider.server.core.errors import Unauthenticated
from outrider.server.core.principals import ANONYMOUS, Principal
from outrider.server.security.identity import Door, Tokens
from outrider.server.security.keys import KeyTable, key_hash, legacy_table, load_key_file
from outrider.server.security.tokens import looks_like_jwt
from outrider.server.settings import Settings

log = logging.getLogger(__name__)

# Where the REST port's connection puts the verified client certificate's common name in each
# request's scope["state"] (rest_edge.tls), for the REST and console edges to authenticate with.
PEER_NAME_STATE = "peer_common_name"

_DENIED = Unauthenticated(
    "missing or invalid API key; send 'authorization: Bearer <key>' or a mapped client certificate"
)
_DENIED_WITH_TOKENS = Unauthenticated(
    "missing or invalid API key or access token; send 'authorization: Bearer <key or token>' "
    "or a mapped client certificate"
)


class Keyring:
    def __init__(self, settings: Settings) -> None:
        self._file = settings.keys_file
        self._legacy = legacy_table(settings.api_keys)
        self._table = self._load()
        self.tokens = Tokens(settings) if settings.oidc.issuer else None

    def _load(self) -> KeyTable:
        if self._file is None:
            return self._legacy
        loaded = load_key_file(self._file)
        return KeyTable(
            {**self._legacy.by_hash, **loaded.by_hash},
            dict(loaded.by_certificate),
            dict(loaded.offers),
        )

    def reload(self) -> bool:
        """Re-reads the key file; on any error keeps the current keys and says why in the log."""
        try:
            table = self._load()
        except (OSError, ValueError) as error:
            log.error("key file not reloaded, previous keys stay in force: %s", error)
            return False
        self._table = table
        log.info("key file reloaded: %d principals", len(table))
        return True

    @property
    def enabled(self) -> bool:
        """False when no key, certificate or issuer is configured: every caller is anonymous."""
        return self._file is not None or len(self._table) > 0 or self.tokens is not None

    def offering(self, principal: Principal) -> Principal:
        """The principal with the models the key file offers its tenant, if it offers any
        (whatever the credential: a key, a certificate or a token)."""
        offer = self._table.offers.get(principal.tenant)
        return principal if offer is None else replace(principal, models=offer)

    def by_key(self, key: str) -> Principal | None:
        return self._table.by_hash.get(key_hash(key))

    def by_certificate(self, common_name: str) -> Principal | None:
        return self._table.by_certificate.get(common_name)

    def by_key_hash(self, digest: str) -> Principal | None:
        return self._table.by_hash.get(digest)

    def key_hashes_of(self, principal_id: str) -> list[str]:
        """The hashes of the keys that authenticate `principal_id` now (none once its entry
        left the key file): how a console session notices its key was revoked."""
        return [h for h, p in self._table.by_hash.items() if p.id == principal_id]


def authenticate(
    keyring: Keyring, authorization: str | None, peer_name: str | None, door: Door
) -> Principal:
    """The caller's principal from its `authorization` header (a key, or an access token for
    `door`, checked with the IdP's keys known now) or its client certificate's common name; a
    credential, when sent, must be valid even if a certificate would map."""
    return keyring.offering(_principal(keyring, authorization, peer_name, door))


def _principal(
    keyring: Keyring, authorization: str | None, peer_name: str | None, door: Door
) -> Principal:
    if not keyring.enabled:
        return ANONYMOUS
    denied = _DENIED if keyring.tokens is None else _DENIED_WITH_TOKENS
    if authorization:
        credential = bearer(authorization)
        principal = keyring.by_key(credential) if credential else None
        if principal is None and credential and _is_token(keyring, credential):
            assert keyring.tokens is not None
            return keyring.tokens.principal_cached(credential, door)
        if principal is None:
            raise denied
        return principal
    principal = keyring.by_certificate(peer_name) if peer_name else None
    if principal is None:
        raise denied
    return principal


async def authenticate_call(
    keyring: Keyring, authorization: str | None, peer_name: str | None, door: Door
) -> Principal:
    """`authenticate` for a new call: an access token naming a key not known yet makes the
    IdP's keys be read first (without blocking the event loop)."""
    credential = bearer(authorization) if authorization else None
    if credential and _is_token(keyring, credential) and keyring.by_key(credential) is None:
        assert keyring.tokens is not None
        return keyring.offering(await keyring.tokens.principal(credential, door))
    return authenticate(keyring, authorization, peer_name, door)


def _is_token(keyring: Keyring, credential: str) -> bool:
    """A JWT while the IdP's tokens are taken (a key is looked up first: OUTRIDER_API_KEYS may
    hold any text, dots too)."""
    return keyring.tokens is not None and looks_like_jwt(credential)


def bearer(authorization: str) -> str | None:
    """The credentials of a Bearer `authorization` header; None for another scheme. RFC 9110
    section 11.1: the scheme is case-insensitive ("bearer" is "Bearer"), and one or more spaces
    separate it from the credentials."""
    scheme, _, credential = authorization.strip().partition(" ")
    return credential.strip() if scheme.lower() == "bearer" else None
