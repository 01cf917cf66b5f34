"""Settings of the real model providers: keys from the providers' usual environment variables,
base URLs, the timeout and retry policy shared by every adapter, and the price table
(`Price`; models/pricing.py estimates costs from it)."""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

# provider -> (read, write) as a share of the input price, where the table gives none
_CACHE_RATIOS = {
    "anthropic": (0.1, 1.25),
    "openai": (0.5, 1.0),
    "gemini": (0.25, 1.0),
}


class Price(BaseModel):
    input: float = Field(ge=0, description="US dollars per million input tokens.")
    output: float = Field(ge=0, description="US dollars per million output tokens.")
    cached_input: float | None = Field(
        None, ge=0, description="US dollars per million input tokens read from the prompt cache."
    )
    cache_write: float | None = Field(
        None, ge=0, description="US dollars per million input tokens written to the prompt cache."
    )

    def cache_prices(self, provider: str) -> tuple[float, float]:
        """(read, write) per million tokens: the table's, else the provider's ratio."""
        read, write = _CACHE_RATIOS.get(provider, (1.0, 1.0))
        return (
            self.input * read if self.cached_input is None else self.cached_input,
            self.input * write if self.cache_write is None else self.cache_write,
        )


def _env(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class ProviderSettings(BaseSettings):
    """Keys use the providers' own variable names; the rest is OUTRIDER_PROVIDER_<FIELD>."""

    model_config = SettingsConfigDict(
        env_prefix="OUTRIDER_PROVIDER_", frozen=True, populate_by_name=True
    )

    openai_api_key: str = Field(
        "", validation_alias=_env("OPENAI_API_KEY"), description="Key of openai:<model>."
    )
    openai_base_url: str = Field(
        "",
        validation_alias=_env("OPENAI_BASE_URL"),
        description="Base URL of openai:<model>; empty means api.openai.com.",
    )
    openai_compatible_api_key: str = Field(
        "",
        validation_alias=_env("OUTRIDER_PROVIDER_OPENAI_COMPATIBLE_API_KEY"),
        description="Key sent to openai-compatible:<model>@<url> servers; most local ones need "
        "none.",
    )
    anthropic_api_key: str = Field(
        "", validation_alias=_env("ANTHROPIC_API_KEY"), description="Key of anthropic:<model>."
    )
    anthropic_base_url: str = Field(
        "",
        validation_alias=_env("ANTHROPIC_BASE_URL"),
        description="Base URL of anthropic:<model>; empty means api.anthropic.com.",
    )
    gemini_api_key: str = Field(
        "",
        validation_alias=_env("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        description="Key of gemini:<model> (GEMINI_API_KEY, else GOOGLE_API_KEY).",
    )
    gemini_base_url: str = Field(
        "",
        validation_alias=_env("OUTRIDER_PROVIDER_GEMINI_BASE_URL"),
        description="Base URL of gemini:<model>; empty means generativelanguage.googleapis.com.",
    )
    prices: dict[str, Price] = Field(
        default_factory=dict,
        description='JSON price table, US dollars per million tokens: {"openai:gpt-4.1-mini": '
        '{"input": 0.4, "output": 1.6}}, optionally "cached_input" and "cache_write" (prompt-cache '
        "reads and writes; else the provider's published ratio). Models without a price get no "
        "cost estimate.",
    )
    timeout: float = Field(120.0, gt=0, description="Seconds one model call attempt may take.")
    max_retries: int = Field(
        3, ge=0, description="Retries of a call after a 429, a 5xx, a timeout or a lost connection."
    )
    retry_base_delay: float = Field(
        1.0, ge=0, description="Seconds before the first retry; doubles with every retry."
    )
    retry_max_delay: float = Field(
        30.0, ge=0, description="Longest wait before a retry, also caps a provider's Retry-After."
    )
    max_output_tokens: int = Field(
        4096, ge=1, description="max_tokens of Anthropic calls (its API requires one)."
    )
