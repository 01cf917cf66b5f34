"""`outrider vault new-key` and `outrider vault rotate`: the operator's side of the vault's master
keys. Neither prints a secret but the new key it was asked to make.

Rotation without downtime: put a new key first in OUTRIDER_VAULT_KEYS (or the keys file) of
every replica, keeping the old one after it, and restart them one by one (new data keys are
wrapped by the new key, old ones still open); run `outrider vault rotate` once (it re-wraps every
data key under the new key); then drop the old key and restart again.
"""

from __future__ import annotations

import sys

from outrider.server.core.storage import open_store
from outrider.server.core.vault.envelope import VaultKeyError
from outrider.server.core.vault.keyring import KeyRingError, configured_keyring, new_key_entry
from outrider.server.core.vault.rotation import rotate
from outrider.server.settings import Settings


def new_key(key_id: str) -> int:
    try:
        print(new_key_entry(key_id), flush=True)
    except KeyRingError as error:
        print(f"outrider: {error}", file=sys.stderr)
        return 2
    return 0


def rotate_keys() -> int:
    settings = Settings()
    vault = settings.vault
    try:
        secret = vault.keys.get_secret_value() if vault.keys is not None else None
        keys = configured_keyring(secret, vault.keys_file)
    except KeyRingError as error:
        print(f"outrider: {error}", file=sys.stderr)
        return 2
    if keys is None:
        print("outrider: no vault key is configured (OUTRIDER_VAULT_KEYS)", file=sys.stderr)
        return 2
    store = open_store(settings)
    try:
        report = rotate(store, keys)
    except VaultKeyError as error:
        print(f"outrider: {error}; nothing more was re-wrapped", file=sys.stderr)
        return 1
    finally:
        store.close()
    moved = ", ".join(f"{count} {table}" for table, count in report.rewrapped.items())
    old = ", ".join(sorted(report.from_keys)) or "none"
    print(f"outrider: re-wrapped {moved} under key {report.primary} (from: {old})", flush=True)
    return 0
