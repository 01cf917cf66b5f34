"""The vault's part of the store contract (`vault_contract.VaultStore`) on SQLite and PostgreSQL
alike: profiles with their version check and writer lease, credentials, the audit trail and the
re-wrapping of data keys, each scoped to its tenant."""

from __future__ import annotations

from dataclasses import replace

from outrider.server.core.storage import Store
from outrider.server.core.storage.vault_contract import (
    CredentialRow,
    CredentialUseRow,
    ProfileRow,
    SealedBox,
)

BOX = SealedBox("k1", b"wrapped", b"body")


def test_a_profile_is_created_once_per_tenant_and_read_only_in_its_tenant(store: Store) -> None:
    assert store.create_profile(ProfileRow("acme", "crm", check_url="http://x/", check_text="Hi"))
    assert not store.create_profile(ProfileRow("acme", "crm"))
    assert store.create_profile(ProfileRow("other", "crm"))
    got = store.get_profile("acme", "crm")
    assert got is not None and got.check_text == "Hi" and got.version == 0
    assert store.get_profile("nobody", "crm") is None
    store.create_profile(ProfileRow("acme", "b-first"))
    assert [p.name for p in store.list_profiles("acme", 10, "")] == ["b-first", "crm"]
    assert [p.name for p in store.list_profiles("acme", 10, "b-first")] == ["crm"]
    state = store.profile_state("acme", "crm")
    assert state is not None and state.version == 0 and state.box is None
    assert store.delete_profile("acme", "crm") and not store.delete_profile("acme", "crm")
    assert store.get_profile("other", "crm") is not None


def test_a_save_needs_the_lease_and_the_version_it_loaded(store: Store) -> None:
    store.create_profile(ProfileRow("acme", "crm"))
    assert store.take_profile_lease("acme", "crm", "run-a", 10, 100) == "run-a"
    assert store.take_profile_lease("acme", "crm", "run-b", 50, 150) == "run-a"  # still held
    assert store.take_profile_lease("acme", "crm", "run-a", 60, 160) == "run-a"  # renewed
    meta = ProfileRow("acme", "crm", origins=("http://a",), cookie_count=2, size=9, update_us=7)
    assert store.save_profile_state(replace(meta, writer="run-b"), BOX, 0, "s-b") is None
    assert store.save_profile_state(replace(meta, writer="run-a"), BOX, 0, "s-a") == 1
    # the same save again (its answer was lost) is answered alike; another save from 0 is not
    assert store.save_profile_state(replace(meta, writer="run-a"), BOX, 0, "s-a") == 1
    assert store.save_profile_state(replace(meta, writer="run-a"), BOX, 0, "s-c") is None
    row = store.get_profile("acme", "crm")
    assert row is not None and row.version == 1 and row.origins == ("http://a",)
    assert row.cookie_count == 2 and row.size == 9
    state = store.profile_state("acme", "crm")
    assert state is not None and state.box == BOX
    store.release_profile_lease("acme", "crm", "run-b")  # not the holder: nothing changes
    assert store.take_profile_lease("acme", "crm", "run-b", 70, 170) == "run-a"
    store.release_profile_lease("acme", "crm", "run-a")
    assert store.take_profile_lease("acme", "crm", "run-b", 70, 170) == "run-b"
    assert store.take_profile_lease("acme", "crm", "run-c", 171, 300) == "run-c"  # expired
    assert store.take_profile_lease("acme", "gone", "run-c", 171, 300) == ""


def test_profiles_unused_since_a_time_are_deleted_unless_being_written(store: Store) -> None:
    for name, used in (("old", 5), ("busy", 5), ("recent", 50)):
        store.create_profile(ProfileRow("acme", name, create_us=1, update_us=1))
        store.profile_used("acme", name, used)
    store.take_profile_lease("acme", "busy", "run-a", 1, 10**18)
    assert store.delete_unused_profiles(20, 100) == [("acme", "old")]
    assert {p.name for p in store.list_profiles("acme", 10, "")} == {"busy", "recent"}


def test_credentials_are_replaced_whole_and_keep_their_creation(store: Store) -> None:
    first = CredentialRow("acme", "crm", ("https://a",), ("username", "password"), 1, 1)
    assert store.put_credential(first, BOX)
    second = replace(first, origins=("https://b",), parts=("password",), create_us=5, update_us=5)
    assert not store.put_credential(second, SealedBox("k2", b"w2", b"b2"))
    got = store.get_credential("acme", "crm")
    assert got is not None and got.origins == ("https://b",) and got.parts == ("password",)
    assert got.create_us == 1 and got.update_us == 5
    assert store.credential_box("acme", "crm") == SealedBox("k2", b"w2", b"b2")
    assert store.get_credential("other", "crm") is None
    assert store.credential_box("other", "crm") is None
    assert [c.name for c in store.list_credentials("acme", 10, "")] == ["crm"]
    assert store.delete_credential("acme", "crm") and store.get_credential("acme", "crm") is None


def test_the_audit_trail_lists_uses_newest_first_by_credential_and_run(store: Store) -> None:
    store.put_credential(CredentialRow("acme", "crm", ("https://a",), ("password",), 1, 1), BOX)
    for n, (credential, run, filled) in enumerate(
        [("crm", "r1", True), ("crm", "r2", False), ("mail", "r1", True)], 1
    ):
        use = CredentialUseRow(
            "acme",
            credential,
            run,
            "https://a",
            "password",
            "password",
            filled,
            "" if filled else "ORIGIN_MISMATCH",
            n * 10,
        )
        store.record_credential_use(use)
    store.record_credential_use(CredentialUseRow("other", "crm", "r9", "o", "p", "f", True, "", 99))
    every = store.credential_uses("acme", "", "", 10, None)
    assert [(u.credential, u.run_id, u.filled) for _, u in every] == [
        ("mail", "r1", True),
        ("crm", "r2", False),
        ("crm", "r1", True),
    ]
    assert every[1][1].reason == "ORIGIN_MISMATCH"
    assert [u.run_id for _, u in store.credential_uses("acme", "crm", "", 10, None)] == ["r2", "r1"]
    assert [u.credential for _, u in store.credential_uses("acme", "", "r1", 10, None)] == [
        "mail",
        "crm",
    ]
    number, newest = every[0]
    older = store.credential_uses("acme", "", "", 10, (newest.use_us, number))
    assert [u.use_us for _, u in older] == [20, 10]
    crm = store.get_credential("acme", "crm")
    assert crm is not None and crm.used_us == 10  # the refused use is not a use


def test_data_keys_are_rewrapped_only_where_unchanged(store: Store) -> None:
    store.put_credential(CredentialRow("acme", "a", ("https://a",), ("password",), 1, 1), BOX)
    store.put_credential(
        CredentialRow("acme", "b", ("https://a",), ("password",), 1, 1), replace(BOX, key_id="k2")
    )
    store.create_profile(ProfileRow("acme", "p"))
    store.take_profile_lease("acme", "p", "r", 1, 10**18)
    store.save_profile_state(ProfileRow("acme", "p", writer="r"), BOX, 0, "s")
    old = store.wrapped_keys("credentials", "k2", 10)
    assert [(k.tenant, k.name, k.key_id) for k in old] == [("acme", "a", "k1")]
    assert store.rewrap_key("credentials", old[0], "k2", b"new")
    assert not store.rewrap_key("credentials", old[0], "k2", b"again")  # changed meanwhile
    assert store.credential_box("acme", "a") == SealedBox("k2", b"new", b"body")
    assert store.wrapped_keys("credentials", "k2", 10) == []
    assert [k.name for k in store.wrapped_keys("profiles", "k2", 10)] == ["p"]
