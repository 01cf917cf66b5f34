"""The part of the store contract (`contract.Store`) that keeps the vault (core/vault/): profiles
and credentials, each a row of metadata and a sealed box (the store never sees a key or a
plaintext), and the audit trail of credential uses. Every read and write names the tenant:
another tenant's row does not exist for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

SealedTable = Literal["profiles", "credentials"]


@dataclass(frozen=True)
class SealedBox:
    """A vault object's encrypted form: the data key wrapped by master key `key_id`, and the
    contents encrypted under the data key (each nonce first)."""

    key_id: str
    wrapped_key: bytes
    body: bytes


@dataclass(frozen=True)
class ProfileRow:
    """A profile's metadata; `writer` holds its writer lease until `writer_until_us`."""

    tenant: str
    name: str
    version: int = 0
    origins: tuple[str, ...] = ()
    cookie_count: int = 0
    size: int = 0
    check_url: str = ""
    check_text: str = ""
    create_us: int = 0
    update_us: int = 0
    used_us: int = 0  # 0: never used
    writer: str = ""
    writer_until_us: int = 0


@dataclass(frozen=True)
class ProfileState:
    """What a run loads: the version and its sealed state (None before the first save)."""

    version: int
    box: SealedBox | None


@dataclass(frozen=True)
class CredentialRow:
    tenant: str
    name: str
    origins: tuple[str, ...]
    parts: tuple[str, ...]  # of "username", "password", "totp"
    create_us: int = 0
    update_us: int = 0
    used_us: int = 0  # 0: never filled


@dataclass(frozen=True)
class CredentialUseRow:
    """One use (or refused use) of a credential: never its value."""

    tenant: str
    credential: str
    run_id: str
    origin: str
    part: str
    field_kind: str
    filled: bool
    reason: str
    use_us: int


@dataclass(frozen=True)
class WrappedKey:
    """A sealed row's data key as rotation sees it: never its contents."""

    tenant: str
    name: str
    key_id: str
    wrapped_key: bytes


class VaultStore(Protocol):
    # profiles

    def create_profile(self, row: ProfileRow) -> bool:
        """Inserts a new profile (version 0, no state); False when the tenant has one of that
        name already."""

    def get_profile(self, tenant: str, name: str) -> ProfileRow | None: ...

    def list_profiles(self, tenant: str, limit: int, after: str) -> list[ProfileRow]:
        """The tenant's profiles by name, those after `after` ("" from the first)."""

    def profile_state(self, tenant: str, name: str) -> ProfileState | None: ...

    def save_profile_state(
        self, row: ProfileRow, box: SealedBox, loaded: int, save_id: str
    ) -> int | None:
        """Writes a new state and its metadata (`row`'s origins, cookies, size, update time) as
        version `loaded` + 1, only if the profile is still at version `loaded` and `row.writer`
        holds its writer lease; the new version, or None when refused. Sent again with the same
        `save_id` after a lost answer, it returns that version again."""

    def take_profile_lease(
        self, tenant: str, name: str, holder: str, now_us: int, until_us: int
    ) -> str:
        """Makes `holder` the profile's writer until `until_us` (taking it again renews it)
        unless another holder's lease still runs at `now_us`; returns the writer after the
        attempt ("" when no such profile)."""

    def release_profile_lease(self, tenant: str, name: str, holder: str) -> None: ...

    def profile_used(self, tenant: str, name: str, when_us: int) -> None: ...

    def delete_profile(self, tenant: str, name: str) -> bool: ...

    def delete_unused_profiles(self, before_us: int, limit: int) -> list[tuple[str, str]]:
        """Deletes profiles neither used nor saved since `before_us` (and not being written);
        returns their (tenant, name)."""

    # credentials

    def put_credential(self, row: CredentialRow, box: SealedBox) -> bool:
        """Creates or replaces a credential (its creation time and last use stay); True when
        created."""

    def get_credential(self, tenant: str, name: str) -> CredentialRow | None: ...

    def credential_box(self, tenant: str, name: str) -> SealedBox | None: ...

    def list_credentials(self, tenant: str, limit: int, after: str) -> list[CredentialRow]: ...

    def delete_credential(self, tenant: str, name: str) -> bool: ...

    def record_credential_use(self, use: CredentialUseRow) -> None:
        """Appends to the audit trail (and notes the credential's last use when filled)."""

    def credential_uses(
        self, tenant: str, credential: str, run_id: str, limit: int, before: tuple[int, int] | None
    ) -> list[tuple[int, CredentialUseRow]]:
        """Audit rows, newest first, with their row numbers: those of one credential and/or
        one run ("" for any), older than the (use_us, number) cursor when given."""

    # rotation

    def wrapped_keys(self, table: SealedTable, not_key_id: str, limit: int) -> list[WrappedKey]:
        """Rows whose data key another master key than `not_key_id` wraps."""

    def rewrap_key(self, table: SealedTable, old: WrappedKey, key_id: str, wrapped: bytes) -> bool:
        """Replaces one row's wrapped data key, only if it is still `old` (a save meanwhile
        sealed the row anew); True when replaced."""
