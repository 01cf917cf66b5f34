"""The operator's master keys: `id:base64-key` entries, from OUTRIDER_VAULT_KEYS (comma-separated)
or OUTRIDER_VAULT_KEYS_FILE (one a line, `#` comments). The first is the primary: it wraps every
new data key, and a rotation re-wraps the others' data keys under it. Keys after the first only
unwrap, so a new primary can be rolled out while old data keys are still wrapped by the old one.
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

_KEY_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
KEY_BYTES = 32  # AES-256


class KeyRingError(ValueError):
    """The configured master keys cannot be used; the message says which entry and why."""


@dataclass(frozen=True)
class KeyRing:
    primary_id: str
    _keys: tuple[tuple[str, bytes], ...]

    @classmethod
    def parse(cls, text: str, where: str) -> KeyRing:
        entries = [
            line.strip()
            for line in re.split(r"[,\n]", text)
            if line.strip() and not line.strip().startswith("#")
        ]
        if not entries:
            raise KeyRingError(f"{where}: no master key")
        keys = tuple(_entry(entry, where, n) for n, entry in enumerate(entries, 1))
        ids = [key_id for key_id, _ in keys]
        if len(set(ids)) != len(ids):
            raise KeyRingError(f"{where}: a key id appears twice")
        return cls(ids[0], keys)

    def has(self, key_id: str) -> bool:
        return any(known == key_id for known, _ in self._keys)

    def key(self, key_id: str) -> bytes:
        return next(key for known, key in self._keys if known == key_id)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(key_id for key_id, _ in self._keys)

    def __repr__(self) -> str:  # never the keys
        return f"KeyRing(primary={self.primary_id!r}, ids={self.ids!r})"


def _entry(entry: str, where: str, number: int) -> tuple[str, bytes]:
    key_id, colon, encoded = entry.partition(":")
    if not colon or not _KEY_ID.fullmatch(key_id):
        raise KeyRingError(
            f"{where}: entry {number} must be id:base64-key, the id 1 to 64 of A-Z a-z 0-9 . _ -"
        )
    try:
        key = base64.b64decode(encoded.strip() + "=" * (-len(encoded.strip()) % 4), altchars=b"-_")
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != KEY_BYTES:
        raise KeyRingError(f"{where}: key {key_id!r} must be {KEY_BYTES} bytes in base64")
    return key_id, key


def new_key_entry(key_id: str) -> str:
    """A fresh master key as a key-file line, `id:base64-key`."""
    if not _KEY_ID.fullmatch(key_id):
        raise KeyRingError("a key id is 1 to 64 of A-Z a-z 0-9 . _ -")
    return f"{key_id}:{base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode()}"


def configured_keyring(keys: str | None, keys_file: Path | None) -> KeyRing | None:
    """The master keys of the settings (OUTRIDER_VAULT_KEYS, else OUTRIDER_VAULT_KEYS_FILE);
    None when neither is set. KeyRingError names what is wrong, never a key."""
    if keys is not None:
        return KeyRing.parse(keys, "OUTRIDER_VAULT_KEYS")
    if keys_file is None:
        return None
    try:
        text = keys_file.read_text()
    except OSError as error:
        raise KeyRingError(f"OUTRIDER_VAULT_KEYS_FILE: cannot read {keys_file}: {error}") from None
    return KeyRing.parse(text, f"OUTRIDER_VAULT_KEYS_FILE ({keys_file})")
