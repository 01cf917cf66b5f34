"""A vault over a test store, with a fresh master key."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr

from outrider.server.core.paging import PageTokens
from outrider.server.core.principals import CALLER_SCOPES, Principal
from outrider.server.core.storage import Store
from outrider.server.core.vault.keyring import new_key_entry
from outrider.server.core.vault.vault import Vault
from outrider.server.settings.vault import VaultSettings

ACME = Principal("alice", "acme", CALLER_SCOPES)
OTHER = Principal("mallory", "other", CALLER_SCOPES)


def a_vault(store: Store, key: str = "", **settings: Any) -> Vault:
    keys = SecretStr(key or new_key_entry("k1"))
    return Vault(store, VaultSettings(keys=keys, **settings), PageTokens(b"k" * 32))
