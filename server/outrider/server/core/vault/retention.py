"""Profiles nobody used or saved for OUTRIDER_VAULT_PROFILE_RETENTION are deleted, in the
background, a batch at a time (a profile being written is kept)."""

from __future__ import annotations

import logging

from outrider.server.core import clock
from outrider.server.core.vault.vault import Vault

log = logging.getLogger(__name__)
_BATCH = 100


def forget_unused_profiles(vault: Vault) -> int:
    """One sweep; returns how many profiles it deleted."""
    keep = vault.settings.profile_retention
    if not keep or not vault.configured:
        return 0
    before = clock.now_us() - int(keep * 1_000_000)
    deleted = vault.store.delete_unused_profiles(before, _BATCH)
    if deleted:
        log.info("deleted %d profiles unused for %g s", len(deleted), keep)
    return len(deleted)
