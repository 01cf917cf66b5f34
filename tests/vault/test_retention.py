"""The retention sweep of profiles (OUTRIDER_VAULT_PROFILE_RETENTION) on both store backends:
a profile neither used nor saved for longer is deleted, a recent one kept, 0 keeps them all."""

from __future__ import annotations

from outrider.server.core import clock
from outrider.server.core.storage import Store
from outrider.server.core.storage.vault_contract import ProfileRow
from outrider.server.core.vault.retention import forget_unused_profiles
from tests.vault.support import a_vault

HOUR_US = 3600 * 1_000_000


def made(store: Store, name: str, age_us: int) -> None:
    then = clock.now_us() - age_us
    store.create_profile(ProfileRow("acme", name, create_us=then, update_us=then))


def test_profiles_unused_past_the_retention_are_deleted(store: Store) -> None:
    made(store, "stale", 3 * HOUR_US)
    made(store, "fresh", 0)
    made(store, "used", 3 * HOUR_US)
    store.profile_used("acme", "used", clock.now_us())
    assert forget_unused_profiles(a_vault(store, profile_retention=0)) == 0  # 0 keeps them
    assert forget_unused_profiles(a_vault(store, profile_retention=2 * 3600)) == 1
    assert store.get_profile("acme", "stale") is None
    assert {p.name for p in store.list_profiles("acme", 10, "")} == {"fresh", "used"}
