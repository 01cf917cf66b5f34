"""Webhook and A2A push delivery. Env vars OUTRIDER_WEBHOOKS_*."""

from __future__ import annotations

import ipaddress
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from outrider.server.units import parse_duration

# Standard Webhooks' schedule after the first attempt: 5 s, 5 min, 30 min, 2, 5, 10, 14, 20, 24 h.
SPEC_RETRIES = (5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 50400.0, 72000.0, 86400.0)


class WebhookSettings(BaseSettings):
    """How deliveries are made. Every field is OUTRIDER_WEBHOOKS_<FIELD>."""

    model_config = SettingsConfigDict(env_prefix="OUTRIDER_WEBHOOKS_", frozen=True)

    deliver: bool = Field(
        True,
        description="This replica delivers webhooks (claims due deliveries from the outbox). "
        "Off: it still writes them, and other replicas deliver them.",
    )
    allow: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="Comma-separated networks (CIDRs) deliveries may reach although they are "
        "not public (loopback, private, link-local, CGNAT), e.g. internal receivers: "
        '"10.20.0.0/16,127.0.0.1/32". Empty: public addresses only.',
    )
    https_only: bool = Field(False, description="Refuse webhook endpoints whose URL is not https.")
    retry_schedule: Annotated[tuple[float, ...], NoDecode] = Field(
        SPEC_RETRIES,
        description="Comma-separated waits before each attempt after the first (seconds, or "
        "5s, 5m, 2h), each give or take a fifth; a delivery is given up after the last. "
        "Default: Standard Webhooks' 5s,5m,30m,2h,5h,10h,14h,20h,24h.",
    )
    disable_after: float = Field(
        "5d",
        gt=0,
        validate_default=True,
        description="An endpoint every delivery to which failed for this long (seconds, or "
        "36h, 5d) is disabled, and an endpoint.disabled notice goes to the tenant's other "
        "endpoints. A 410 answer disables it at once.",
    )
    timeout: float = Field(
        15.0,
        gt=0,
        le=60,
        description="Seconds one attempt may take in all (connecting, sending, the answer).",
    )
    concurrency: int = Field(16, ge=1, description="Attempts one replica makes at once.")
    poll_interval: float = Field(
        1.0,
        gt=0,
        description="Seconds between two looks for due deliveries while idle (retries falling "
        "due, deliveries other replicas wrote or left).",
    )
    retention: float = Field(
        "7d",
        gt=0,
        validate_default=True,
        description="How long finished deliveries are kept for people to look at (seconds, or "
        "36h, 7d).",
    )

    @field_validator("allow", mode="before")
    @classmethod
    def _networks(cls, value: object) -> object:
        if isinstance(value, str):
            value = tuple(item.strip() for item in value.split(",") if item.strip())
        for item in value if isinstance(value, tuple | list) else ():
            ipaddress.ip_network(str(item), strict=False)  # ValueError names the bad one
        return value

    @field_validator("retry_schedule", mode="before")
    @classmethod
    def _schedule(cls, value: object) -> object:
        if isinstance(value, str):
            value = tuple(parse_duration(item.strip()) for item in value.split(",") if item.strip())
        if isinstance(value, tuple | list) and not value:
            raise ValueError("give at least one wait (a delivery is tried once more at least)")
        return value

    @field_validator("disable_after", "retention", mode="before")
    @classmethod
    def _duration(cls, value: object) -> object:
        return parse_duration(value)

    @property
    def lease(self) -> float:
        """Seconds a claimed delivery is held: an attempt's timeout, twice, and a margin."""
        return 2 * self.timeout + 5
