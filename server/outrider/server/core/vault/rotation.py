"""Rotating the master key: every data key that another master key than the primary wraps is
unwrapped and wrapped again by the primary, row by row, each only if the row did not change
meanwhile (a save seals anew under the primary anyway). Contents are never decrypted, and
nothing secret is printed: the report is counts and key ids."""

from __future__ import annotations

from dataclasses import dataclass, field

from outrider.server.core.storage.contract import Store
from outrider.server.core.storage.vault_contract import SealedBox, SealedTable
from outrider.server.core.vault.envelope import Identity, rewrap
from outrider.server.core.vault.keyring import KeyRing

_BATCH = 200
_KINDS: dict[SealedTable, str] = {"profiles": "profile", "credentials": "credential"}


@dataclass
class Rotation:
    primary: str
    rewrapped: dict[str, int] = field(default_factory=dict)  # table -> rows re-wrapped
    from_keys: set[str] = field(default_factory=set)


def rotate(store: Store, keys: KeyRing) -> Rotation:
    """Re-wraps every data key under the primary master key; VaultKeyError (nothing changed for
    that row) when a row's master key is not in `keys`."""
    report = Rotation(keys.primary_id)
    for table, kind in _KINDS.items():
        count, progress = 0, True
        while progress and (batch := store.wrapped_keys(table, keys.primary_id, _BATCH)):
            progress = False  # rows sealed anew under an older primary meanwhile: next run
            for old in batch:
                identity = Identity(kind, old.tenant, old.name)
                new = rewrap(SealedBox(old.key_id, old.wrapped_key, b""), identity, keys)
                if store.rewrap_key(table, old, new.key_id, new.wrapped_key):
                    count, progress = count + 1, True
                    report.from_keys.add(old.key_id)
        report.rewrapped[table] = count
    store.flush()
    return report
