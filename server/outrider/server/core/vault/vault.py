"""The vault as the rest of the core sees it: the master keys (or their absence), sealing and
opening the tenant's objects, and its two resources, `profiles` and `credentials`."""

from __future__ import annotations

from outrider.server.core.errors import FailedPrecondition, NotFound, Unavailable
from outrider.server.core.paging import PageTokens
from outrider.server.core.storage.contract import Store
from outrider.server.core.storage.vault_contract import SealedBox
from outrider.server.core.vault.checks import check_vault_options
from outrider.server.core.vault.envelope import Identity, VaultKeyError, seal, unseal
from outrider.server.core.vault.keyring import KeyRing, configured_keyring
from outrider.server.settings.vault import VaultSettings
from outrider.v1 import params_pb2

NOT_CONFIGURED = "VAULT_NOT_CONFIGURED"


class Vault:
    def __init__(self, store: Store, settings: VaultSettings, page_tokens: PageTokens) -> None:
        self.store = store
        self.settings = settings
        self.page_tokens = page_tokens
        secret = settings.keys.get_secret_value() if settings.keys is not None else None
        self._keys = configured_keyring(secret, settings.keys_file)  # KeyRingError: refuse to start

    @property
    def configured(self) -> bool:
        return self._keys is not None

    @property
    def keys(self) -> KeyRing:
        """The master keys; FailedPrecondition (VAULT_NOT_CONFIGURED) where there are none."""
        if self._keys is None:
            raise FailedPrecondition(
                "profiles and credentials need a vault key on this server "
                "(OUTRIDER_VAULT_KEYS or OUTRIDER_VAULT_KEYS_FILE)",
                NOT_CONFIGURED,
            )
        return self._keys

    def require(self) -> None:
        """Refuses (VAULT_NOT_CONFIGURED) where no vault key is configured."""
        self.keys  # noqa: B018 (the property raises)

    def seal(self, plaintext: bytes, identity: Identity) -> SealedBox:
        return seal(plaintext, identity, self.keys)

    def open(self, box: SealedBox, identity: Identity) -> bytes:
        try:
            return unseal(box, identity, self.keys)
        except VaultKeyError as error:
            raise Unavailable(str(error), "VAULT_KEY_UNAVAILABLE") from None

    def check_run(
        self,
        options: params_pb2.RunOptions,
        tenant: str,
        browser_run: bool,
        prefix: str,
        session_profile: str = "",
    ) -> None:
        """A start's vault options: well formed, and naming only profiles and credentials of
        the tenant (NOT_FOUND otherwise, the same for another tenant's as for none; so is the
        profile a run saves to in its session, `session_profile`, deleted since)."""
        profile, credentials = check_vault_options(options, prefix, browser_run, session_profile)
        if not (profile or credentials):
            return
        self.require()
        if profile and self.store.get_profile(tenant, profile) is None:
            raise NotFound(f"profiles/{profile} does not exist")
        for credential in credentials:
            if self.store.get_credential(tenant, credential) is None:
                raise NotFound(f"credentials/{credential} does not exist")
