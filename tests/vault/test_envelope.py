"""Envelope encryption of the vault: a data key per object, wrapped by a master key named by its
id; the object's identity bound in; rotation re-wraps without touching the contents."""

from __future__ import annotations

import base64
from dataclasses import replace
from pathlib import Path

import pytest

from outrider.server.core.storage import Store
from outrider.server.core.storage.vault_contract import CredentialRow
from outrider.server.core.vault.envelope import Identity, VaultKeyError, rewrap, seal, unseal
from outrider.server.core.vault.keyring import (
    KeyRing,
    KeyRingError,
    configured_keyring,
    new_key_entry,
)
from outrider.server.core.vault.rotation import rotate

OLD, NEW = new_key_entry("2025-old"), new_key_entry("2026-new")
WHO = Identity("credential", "acme", "crm")


def test_a_sealed_box_opens_only_as_what_it_was_sealed_as() -> None:
    keys = KeyRing.parse(OLD, "test")
    box = seal(b"hunter2", WHO, keys)
    assert box.key_id == "2025-old" and b"hunter2" not in box.body + box.wrapped_key
    assert unseal(box, WHO, keys) == b"hunter2"
    assert seal(b"hunter2", WHO, keys).body != box.body  # a new data key and nonce each time
    for other in (
        replace(WHO, tenant="evil"),
        replace(WHO, name="x"),
        replace(WHO, kind="profile"),
    ):
        with pytest.raises(VaultKeyError):
            unseal(box, other, keys)
    flipped = replace(box, body=box.body[:-1] + bytes([box.body[-1] ^ 1]))
    with pytest.raises(VaultKeyError):
        unseal(flipped, WHO, keys)


def test_a_box_of_a_key_that_is_not_configured_says_which_key() -> None:
    box = seal(b"x", WHO, KeyRing.parse(OLD, "test"))
    with pytest.raises(VaultKeyError, match="2025-old"):
        unseal(box, WHO, KeyRing.parse(NEW, "test"))


def test_rewrapping_keeps_the_body_and_moves_the_key_to_the_primary() -> None:
    box = seal(b"secret state", WHO, KeyRing.parse(OLD, "test"))
    both = KeyRing.parse(f"{NEW},{OLD}", "test")
    moved = rewrap(box, WHO, both)
    assert moved.key_id == "2026-new" and moved.body == box.body
    assert unseal(moved, WHO, KeyRing.parse(NEW, "test")) == b"secret state"


def test_key_rings_are_parsed_from_settings_with_errors_that_never_show_a_key(
    tmp_path: Path,
) -> None:
    assert configured_keyring(None, None) is None
    ring = configured_keyring(f" {NEW} , {OLD} ", None)
    assert ring is not None and ring.ids == ("2026-new", "2025-old")
    file = tmp_path / "keys"
    file.write_text(f"# primary first\n{OLD}\n")
    from_file = configured_keyring(None, file)
    assert from_file is not None and from_file.primary_id == "2025-old"
    assert "2025" in repr(from_file) and OLD.split(":")[1] not in repr(from_file)
    short = base64.b64encode(b"too short").decode()
    for bad, problem in (
        ("", "no master key"),
        (f"k:{short}", "32 bytes"),
        ("nocolon", "id:base64-key"),
        (f"{OLD},{OLD}", "twice"),
    ):
        with pytest.raises(KeyRingError, match=problem) as raised:
            configured_keyring(bad, None)
        assert short not in str(raised.value)
    with pytest.raises(KeyRingError, match="cannot read"):
        configured_keyring(None, tmp_path / "missing")


def test_rotation_rewraps_every_row_of_the_old_key(store: Store) -> None:
    old = KeyRing.parse(OLD, "test")
    for name in ("a", "b"):
        identity = Identity("credential", "acme", name)
        row = CredentialRow("acme", name, ("https://a",), ("password",), 1, 1)
        store.put_credential(row, seal(name.encode() * 3, identity, old))
    report = rotate(store, KeyRing.parse(f"{NEW},{OLD}", "test"))
    assert report.rewrapped == {"profiles": 0, "credentials": 2}
    assert report.from_keys == {"2025-old"}
    new_only = KeyRing.parse(NEW, "test")
    for name in ("a", "b"):
        box = store.credential_box("acme", name)
        assert box is not None and box.key_id == "2026-new"
        assert unseal(box, Identity("credential", "acme", name), new_only) == name.encode() * 3
    assert rotate(store, KeyRing.parse(f"{NEW},{OLD}", "test")).rewrapped["credentials"] == 0
