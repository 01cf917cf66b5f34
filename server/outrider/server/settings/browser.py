"""Browser-agent settings, read from OUTRIDER_BROWSER_* environment variables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class BrowserSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="OUTRIDER_BROWSER_", frozen=True)

    cdp_endpoints: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Comma-separated CDP endpoints to use instead of a local Chromium."
    )
    upload_dir: Path | None = Field(None, description="Directory the agent may upload files from.")
    vision: bool = Field(False, description="Send a screenshot with every step to the model.")
    screenshots: bool = Field(True, description="Capture a screenshot artifact every step.")
    max_snapshot_chars: int = Field(
        24_000, ge=1000, description="Cap of the page snapshot the model sees per step."
    )
    large_page_elements: int = Field(
        5000, ge=100, description="Pages with more elements get the fast viewport-first view."
    )
    max_consecutive_errors: int = Field(5, ge=1, description="Failed actions in a row: MAX_ERRORS.")
    max_total_errors: int = Field(15, ge=1, description="Failed actions in all: MAX_ERRORS.")
    repeat_limit: int = Field(
        3, ge=1, description="Identical actions on an unchanged page before refusing."
    )
    action_timeout: float = Field(5.0, gt=0, description="Seconds one action may take.")
    navigation_timeout: float = Field(15.0, gt=0, description="Seconds a navigation may take.")
    model_retries: int = Field(
        2, ge=0, description="Retries of a model reply that fails its schema."
    )
    max_reconnects: int = Field(2, ge=0, description="Browser reconnects per run after a crash.")
    max_actions_per_turn: int = Field(
        10,
        ge=1,
        le=50,
        description="Tool calls of one model reply the agent carries out (in order, stopping "
        "where the page changes under the next); 1: one action per model call.",
    )

    @field_validator("cdp_endpoints", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value
