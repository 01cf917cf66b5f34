"""Session settings (sessions of the SessionService, not the console's sign-in), read from
OUTRIDER_SESSION_* environment variables."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class SessionSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="OUTRIDER_SESSION_", frozen=True)

    idle_timeout: float = Field(
        600.0,
        gt=0,
        description="Seconds a session waits without an active run before it ends (SESSION_IDLE) "
        "when its creator did not say.",
    )
    max_life: float = Field(
        3600.0,
        gt=0,
        description="Seconds a session lives in all (SESSION_EXPIRED) when its creator did not "
        "say.",
    )
    longest_life: float = Field(
        86_400.0,
        gt=0,
        description="The longest maximum life a caller may ask of a session, in seconds.",
    )
    max_live: int = Field(
        8,
        ge=0,
        description="Live sessions this replica holds at once (each may keep a browser open); "
        "beyond, new ones are refused with RESOURCE_EXHAUSTED (reason SESSION_LIMIT). 0: none.",
    )
    tenant_max_live: int = Field(
        0,
        ge=0,
        description="Live sessions one tenant may have at once across every replica sharing the "
        "store; beyond, refused with RESOURCE_EXHAUSTED (reason TENANT_SESSION_LIMIT). 0 = no "
        "limit.",
    )
    page_ttl: float = Field(
        3600.0,
        ge=0,
        description="Seconds a page a research session's run read is reused by the session's "
        "later runs instead of being fetched again.",
    )
    memory_chars: int = Field(
        6000,
        ge=500,
        description="Characters of the summary of a session's earlier runs that its next run's "
        "model sees; older runs are left out first, and the run is told how many.",
    )
