"""Cost estimates come only from the configured price table."""

from __future__ import annotations

import pytest

from outrider.server.models.pricing import Price, estimated_cost

PRICES = {
    "openai:gpt-4.1-mini": Price(input=0.4, output=1.6),
    "claude-x": Price(input=3, output=15),
}


def test_estimates_by_spec_or_by_bare_model_name() -> None:
    assert estimated_cost(PRICES, "openai:gpt-4.1-mini", 1_000_000, 500_000) == pytest.approx(1.2)
    assert estimated_cost(PRICES, "anthropic:claude-x", 2000, 100) == pytest.approx(0.0075)


def test_unpriced_models_get_no_estimate() -> None:
    assert estimated_cost(PRICES, "gemini:flash", 10, 10) is None
