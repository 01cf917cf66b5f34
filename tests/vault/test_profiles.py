"""Profiles in the core: metadata only for callers, state only for the run that opens one; many
readers and one writer, a save refused (and said why) rather than lost."""

from __future__ import annotations

import pytest

from outrider.server.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
)
from outrider.server.core.paging import PageTokens
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.storage import Store
from outrider.server.core.vault.opened_profile import OpenedProfile
from outrider.server.core.vault.profiles import Profiles
from outrider.server.core.vault.vault import Vault
from outrider.server.settings.vault import VaultSettings
from outrider.v1 import profile_pb2
from tests.vault.support import ACME, OTHER, a_vault

STATE = {
    "cookies": [
        {
            "name": "sid",
            "value": "s3ss10n-c00kie",
            "domain": "127.0.0.1",
            "path": "/",
            "expires": -1,
            "httpOnly": True,
            "secure": False,
            "sameSite": "Lax",
        }
    ],
    "origins": [{"origin": "http://127.0.0.1:8000", "localStorage": [{"name": "t", "value": "v"}]}],
}
CHECK = profile_pb2.ProfileCheck(url="http://127.0.0.1:8000/account", text="Sign out")


def test_profiles_are_created_listed_and_deleted_in_their_tenant(store: Store) -> None:
    profiles = Profiles(a_vault(store))
    made = profiles.create(ACME, "crm", CHECK)
    assert made.name == "profiles/crm" and made.version == 0 and made.check.text == "Sign out"
    with pytest.raises(AlreadyExists):
        profiles.create(ACME, "crm", profile_pb2.ProfileCheck())
    for n in range(3):
        profiles.create(ACME, f"p{n}", profile_pb2.ProfileCheck())
    first, token = profiles.page(ACME, 2, "")
    second, last = profiles.page(ACME, 2, token)
    assert [p.name for p in first + second] == [
        "profiles/crm",
        "profiles/p0",
        "profiles/p1",
        "profiles/p2",
    ]
    assert last == ""
    with pytest.raises(NotFound):
        profiles.get(OTHER, "crm")
    with pytest.raises(NotFound):
        profiles.delete(OTHER, "crm")
    profiles.delete(ACME, "crm")
    with pytest.raises(NotFound):
        profiles.get(ACME, "crm")


def test_bad_names_and_checks_are_field_violations(store: Store) -> None:
    profiles = Profiles(a_vault(store))
    with pytest.raises(InvalidArgument) as bad_id:
        profiles.create(ACME, "Bad Name", profile_pb2.ProfileCheck())
    assert bad_id.value.violations[0].field == "profile_id"
    with pytest.raises(InvalidArgument) as half:
        profiles.create(ACME, "ok", profile_pb2.ProfileCheck(url="http://a/"))
    assert half.value.violations[0].field == "check"
    with pytest.raises(InvalidArgument) as not_http:
        profiles.create(ACME, "ok", profile_pb2.ProfileCheck(url="file:///x", text="t"))
    assert not_http.value.violations[0].field == "check.url"


def test_managing_profiles_needs_its_scope(store: Store) -> None:
    runner = Principal("bot", "acme", frozenset({Scope.RUNS_START, Scope.CREDENTIALS_MANAGE}))
    with pytest.raises(PermissionDenied, match=r"profiles\.manage"):
        Profiles(a_vault(store)).create(runner, "crm", CHECK)


def test_without_a_key_the_vault_refuses_with_a_reason(store: Store) -> None:
    vault = Vault(store, VaultSettings(), PageTokens(b"k" * 32))
    with pytest.raises(FailedPrecondition) as refused:
        Profiles(vault).create(ACME, "crm", profile_pb2.ProfileCheck())
    assert refused.value.reason == "VAULT_NOT_CONFIGURED"


def test_a_saved_state_is_sealed_and_only_figures_are_shown(store: Store) -> None:
    vault = a_vault(store)
    Profiles(vault).create(ACME, "crm", CHECK)
    opened = OpenedProfile.open(vault, "acme", "crm", "run1", save=True)
    assert opened.writer and opened.state is None and opened.version == 0
    report = opened.save(STATE)
    assert report.saved and report.version == 1 and report.cookie_count == 1
    assert list(report.origins) == ["http://127.0.0.1", "http://127.0.0.1:8000"]
    opened.close()
    stored = store.profile_state("acme", "crm")
    assert stored is not None and stored.box is not None
    assert b"s3ss10n" not in stored.box.body + stored.box.wrapped_key
    again = OpenedProfile.open(vault, "acme", "crm", "run2", save=False)
    assert again.state == STATE and again.version == 1 and not again.writer
    shown = Profiles(vault).get(ACME, "crm")
    assert shown.version == 1 and shown.cookie_count == 1 and shown.HasField("last_used_time")
    assert "s3ss10n" not in str(shown) + str(again.loaded())


def test_one_writer_at_a_time_and_no_save_over_a_newer_version(store: Store) -> None:
    vault = a_vault(store)
    Profiles(vault).create(ACME, "crm", CHECK)
    first = OpenedProfile.open(vault, "acme", "crm", "run1", save=True)
    second = OpenedProfile.open(vault, "acme", "crm", "run2", save=True)
    assert first.writer and not second.writer
    assert Profiles(vault).get(ACME, "crm").writer == "runs/run1"
    held = second.save(STATE)
    assert not held.saved and held.refusal_reason == "PROFILE_LEASE_HELD"
    assert "runs/run1" in held.message
    assert first.save(STATE).saved
    first.close()
    late = second.save(STATE)  # the lease is free now, but run2 loaded version 0
    assert not late.saved and late.refusal_reason == "PROFILE_VERSION_CONFLICT"
    assert "version 1" in late.message


def test_too_large_and_deleted_profiles_are_refused_with_their_reason(store: Store) -> None:
    vault = a_vault(store, profile_max_bytes=300)
    Profiles(vault).create(ACME, "crm", CHECK)
    opened = OpenedProfile.open(vault, "acme", "crm", "run1", save=True)
    big = opened.save({"cookies": [], "origins": [{"origin": "http://x", "data": "x" * 400}]})
    assert big.refusal_reason == "PROFILE_TOO_LARGE" and not big.saved
    Profiles(vault).delete(ACME, "crm")
    gone = opened.save(STATE)
    assert gone.refusal_reason == "PROFILE_DELETED"
