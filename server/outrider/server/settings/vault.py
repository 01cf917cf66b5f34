"""Vault settings: the master keys that wrap profiles' and credentials' data keys, and how
profiles are kept. Read from OUTRIDER_VAULT_* environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from outrider.server.units import parse_duration, parse_size


class VaultSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="OUTRIDER_VAULT_", frozen=True)

    keys: SecretStr | None = Field(
        None,
        description="Master keys of the vault, comma-separated `id:base64-key` (32 random bytes "
        "each; `outrider vault new-key` makes one). The first wraps new data keys; the others "
        "only unwrap older ones until `outrider vault rotate` re-wraps them. Unset (and no "
        "keys file): profiles and credentials are off (FAILED_PRECONDITION, "
        "VAULT_NOT_CONFIGURED).",
    )
    keys_file: Path | None = Field(
        None,
        description="File of master keys, one `id:base64-key` a line, the first the primary "
        "(instead of OUTRIDER_VAULT_KEYS); keep it readable by the server only.",
    )
    profile_max_bytes: int = Field(
        "5MiB",
        gt=0,
        validate_default=True,
        description="Largest browser state a profile keeps (cookies, localStorage, IndexedDB as "
        "JSON); a bigger save is refused (PROFILE_TOO_LARGE) and reported in the run's outcome.",
    )
    profile_retention: float = Field(
        "90d",
        ge=0,
        validate_default=True,
        description="Profiles neither used nor saved for this long are deleted (90d, 36h, or "
        "seconds; 0 keeps them).",
    )
    profile_lease: float = Field(
        60.0,
        ge=5,
        description="Seconds a run's writer lease on its profile lasts unless renewed (a run "
        "renews it every third of this while it runs): a lost replica's lease frees by then.",
    )
    totp_attempts: int = Field(
        3,
        ge=1,
        le=10,
        description="One-time codes a run may fill per credential (each a new code): a site "
        "rejecting them is not given more.",
    )

    @field_validator("profile_retention", mode="before")
    @classmethod
    def _duration(cls, value: object) -> object:
        return parse_duration(value)

    @field_validator("profile_max_bytes", mode="before")
    @classmethod
    def _size(cls, value: object) -> object:
        return parse_size(value)

    @property
    def configured(self) -> bool:
        return self.keys is not None or self.keys_file is not None
