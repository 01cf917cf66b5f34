"""Cost estimates come only from the configured price table; prompt-cache tokens are priced as
each provider bills them."""

from __future__ import annotations

import pytest

from outrider.server.models.base import Usage
from outrider.server.models.pricing import estimated_cost
from outrider.server.settings.providers import Price

PRICES = {
    "openai:gpt-4.1-mini": Price(input=0.4, output=1.6),
    "claude-x": Price(input=3, output=15),
    "openai:gpt-4.1": Price(input=2, output=8, cached_input=0.5),
    "gemini:flash": Price(input=0.3, output=2.5),
    "openai-compatible:local": Price(input=1, output=1),
}


def test_estimates_by_spec_or_by_bare_model_name() -> None:
    cost = estimated_cost(PRICES, "openai:gpt-4.1-mini", Usage(1_000_000, 500_000))
    assert cost == pytest.approx(1.2)
    assert estimated_cost(PRICES, "anthropic:claude-x", Usage(2000, 100)) == pytest.approx(0.0075)


def test_unpriced_models_get_no_estimate() -> None:
    assert estimated_cost(PRICES, "gemini:pro", Usage(10, 10)) is None


def test_anthropic_bills_cache_reads_at_a_tenth_and_writes_at_five_quarters() -> None:
    # 10,000 prompt tokens: 6,000 read from the cache, 3,000 written to it, 1,000 plain
    usage = Usage(10_000, 100, cached_input_tokens=6_000, cache_write_tokens=3_000)
    expected = (1_000 * 3 + 6_000 * 0.3 + 3_000 * 3.75 + 100 * 15) / 1_000_000
    assert estimated_cost(PRICES, "anthropic:claude-x", usage) == pytest.approx(expected)


def test_a_configured_cached_price_wins_over_the_providers_ratio() -> None:
    usage = Usage(4_000, 0, cached_input_tokens=3_000)
    assert estimated_cost(PRICES, "openai:gpt-4.1", usage) == pytest.approx(
        (1_000 * 2 + 3_000 * 0.5) / 1_000_000
    )
    # without one: OpenAI's smallest published discount (half), Gemini 2.5's (a quarter)
    assert estimated_cost(PRICES, "openai:gpt-4.1-mini", usage) == pytest.approx(
        (1_000 * 0.4 + 3_000 * 0.2) / 1_000_000
    )
    assert estimated_cost(PRICES, "gemini:flash", usage) == pytest.approx(
        (1_000 * 0.3 + 3_000 * 0.075) / 1_000_000
    )


def test_servers_behind_openai_compatible_get_no_discount() -> None:
    usage = Usage(4_000, 0, cached_input_tokens=3_000)
    assert estimated_cost(PRICES, "openai-compatible:local", usage) == pytest.approx(0.004)
