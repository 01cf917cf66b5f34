"""Envelope encryption: each sealed object has a random AES-256-GCM data key of its own; the data
key is stored wrapped (encrypted with AES-256-GCM) by one of the operator's master keys, named by
its key id. Rotating the master key re-wraps data keys only: contents are never decrypted for it.

Both encryptions bind the object's identity (what it is, its tenant and name) as associated
data, so a sealed box copied onto another row, tenant or kind does not open there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from outrider.server.core.storage.vault_contract import SealedBox
from outrider.server.core.vault.keyring import KeyRing

_NONCE = 12  # bytes: GCM's standard nonce, random per encryption
_FORMAT = b"outrider vault v1"


class VaultKeyError(Exception):
    """A sealed box cannot be opened: its master key is not configured, or it was tampered with
    (or moved to another row)."""


@dataclass(frozen=True)
class Identity:
    """What a sealed object is, bound into its encryption: "profile" or "credential", its tenant
    and its name."""

    kind: str
    tenant: str
    name: str

    def associated_data(self, layer: str) -> bytes:
        return b"\0".join((_FORMAT, layer.encode(), *(p.encode() for p in self.fields())))

    def fields(self) -> tuple[str, str, str]:
        return self.kind, self.tenant, self.name


def seal(plaintext: bytes, identity: Identity, keys: KeyRing) -> SealedBox:
    """Encrypts under a new data key, wrapped by the primary master key."""
    data_key = AESGCM.generate_key(bit_length=256)
    body = _encrypt(data_key, plaintext, identity.associated_data("body"))
    return SealedBox(keys.primary_id, _wrap(data_key, identity, keys, keys.primary_id), body)


def unseal(box: SealedBox, identity: Identity, keys: KeyRing) -> bytes:
    data_key = _unwrap(box, identity, keys)
    return _decrypt(data_key, box.body, identity.associated_data("body"))


def rewrap(box: SealedBox, identity: Identity, keys: KeyRing) -> SealedBox:
    """The same box with its data key wrapped by the primary master key; the body is untouched
    (never decrypted)."""
    data_key = _unwrap(box, identity, keys)
    return SealedBox(keys.primary_id, _wrap(data_key, identity, keys, keys.primary_id), box.body)


def _wrap(data_key: bytes, identity: Identity, keys: KeyRing, key_id: str) -> bytes:
    return _encrypt(keys.key(key_id), data_key, identity.associated_data(f"key {key_id}"))


def _unwrap(box: SealedBox, identity: Identity, keys: KeyRing) -> bytes:
    if not keys.has(box.key_id):
        raise VaultKeyError(
            f"the master key {box.key_id!r} that wraps this {identity.kind}'s data key is not "
            "configured (OUTRIDER_VAULT_KEYS / OUTRIDER_VAULT_KEYS_FILE)"
        )
    master = keys.key(box.key_id)
    return _decrypt(master, box.wrapped_key, identity.associated_data(f"key {box.key_id}"))


def _encrypt(key: bytes, plaintext: bytes, associated: bytes) -> bytes:
    nonce = os.urandom(_NONCE)
    return nonce + AESGCM(key).encrypt(nonce, plaintext, associated)


def _decrypt(key: bytes, sealed: bytes, associated: bytes) -> bytes:
    try:
        return AESGCM(key).decrypt(sealed[:_NONCE], sealed[_NONCE:], associated)
    except (InvalidTag, ValueError) as error:
        raise VaultKeyError("a sealed box did not open: wrong key, or altered") from error
