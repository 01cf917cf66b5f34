"""A browser run through each provider's adapter and fake server (issue 27): one reply with two
tool calls goes back as two results in the provider's own format; every actor request starts
with the previous one's prompt up to its page, identical block for block; Anthropic's carry
cache breakpoints there; the cached tokens each provider reports reach ai:generation,
task:metrics and the cost estimate."""

from __future__ import annotations

from typing import Any

import pytest

from outrider.server.settings.providers import Price
from outrider.v1 import run_event_pb2
from tests.conftest import HarnessFactory
from tests.models.dialects import ANTHROPIC, DIALECTS, GEMINI, Dialect
from tests.models.fake_providers import Answer, FakeProvider
from tests.models.test_browser_runs import PLAN, VERDICT, automate, start
from tests.support.requests import collect

SCROLLS = [("scroll", {"direction": "down"}), ("scroll", {"direction": "up"})]
DONE = [("done", {"answer": "The Red Mug costs $8.25."})]
# (prompt, output) tokens and (read from, written to) the cache of the two actor replies
FIRST, SECOND = ((2000, 30), (0, 1800)), ((2100, 20), (1800, 250))


class CachingModel:
    """Plays the model in one provider's protocol, reporting cache use as that provider would."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.actor_bodies: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Answer:
        schema = self.dialect.schema_in(body)
        if schema is not None:
            done = "plan" in schema.get("properties", {})
            return Answer(self.dialect.structured(PLAN if done else VERDICT))
        self.actor_bodies.append(body)
        calls, (usage, cache) = (SCROLLS, FIRST) if len(self.actor_bodies) == 1 else (DONE, SECOND)
        return Answer(self.dialect.calls(calls, usage, cache))


def prompt_blocks(dialect: Dialect, body: dict[str, Any]) -> list[Any]:
    """The request's prompt in the provider's order, one JSON value per block: tools, system,
    then every message's blocks (a merged message's blocks each on their own)."""
    if dialect is ANTHROPIC:
        messages = [block for m in body["messages"] for block in m["content"]]
        return [*body["tools"], *body["system"], *messages]
    if dialect is GEMINI:
        parts = [part for content in body["contents"] for part in content["parts"]]
        return [*body["tools"], body["systemInstruction"], *parts]
    return [*body["tools"], *body["messages"]]


def page_start(blocks: list[Any]) -> int:
    """Where the page (its text and screenshot) begins at the end of a request's blocks."""
    start = len(blocks)
    while start > 0 and _is_page(blocks[start - 1]):
        start -= 1
    return start


def _is_page(block: Any) -> bool:
    image = isinstance(block, dict) and ("inlineData" in block or block.get("type") == "image")
    return image or "EXTERNAL_CONTENT>>>" in str(block)


def usage_events(events: list[run_event_pb2.RunEvent]) -> list[Any]:
    return [e.automate.ai_generation for e in events if e.automate.HasField("ai_generation")]


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.provider for d in DIALECTS])
async def test_a_run_sends_a_stable_prefix_and_reports_cached_tokens(
    make_harness: HarnessFactory, fake: FakeProvider, sites: str, dialect: Dialect
) -> None:
    model = CachingModel(dialect)
    fake.respond = model
    spec = dialect.spec(fake)
    # A generous per-attempt timeout: a retried attempt (a slow reply under load) would be one
    # more actor request, and this test counts them.
    prices = {spec: Price(input=3.0, output=15.0)}
    harness = await start(make_harness, dialect, fake, sites, prices=prices, timeout=30.0)
    events = await collect(harness.runs.Automate(automate(sites)))
    assert events[-2].automate.complete.success, events[-2]
    first, second = model.actor_bodies

    # two calls in one reply: two actions, two results in the provider's format
    completed = [e for e in events if e.automate.HasField("browser_action_completed")]
    assert len(completed) == 2
    assert len(dialect.tool_results_in(second)) == 2

    # the second request repeats the first up to its page (text and screenshot), block for block
    before, after = prompt_blocks(dialect, first), prompt_blocks(dialect, second)
    kept = page_start(before)
    assert kept >= 3 and after[:kept] == before[:kept]  # tools, rules, task at least
    assert page_start(after) > kept  # the old page is gone, the turn follows
    if dialect is ANTHROPIC:
        # the rules every run shares (and the tools before them), the task; then the turn
        assert "cache_control" in second["system"][0] and "cache_control" in before[kept - 1]
        marked = [b for b in after if isinstance(b, dict) and "cache_control" in b]
        assert marked[-1]["type"] == "tool_result" and len(marked) == 3

    # cached tokens as each provider reported them, in events and in the cost
    actor_usage = [g.usage for g in usage_events(events)[1:3]]  # after the plan
    written = 1800 if dialect is ANTHROPIC else 0  # only Anthropic reports writes
    assert [(u.cached_input_tokens, u.cache_write_input_tokens) for u in actor_usage] == [
        (0, written),
        (1800, 250 if dialect is ANTHROPIC else 0),
    ]
    assert actor_usage[1].input_tokens == 2100
    [metrics] = [e.automate.task_metrics for e in events if e.automate.HasField("task_metrics")]
    assert metrics.total_cached_input_tokens == 1800
    assert metrics.model_usage[spec].cached_input_tokens == 1800
    about = usage_events(events)[2].provider_metadata["outrider"]
    assert about["cached_input_tokens"] == 1800
    # per million: Anthropic reads at a tenth and writes at 1.25x; Gemini 2.5 reads at a
    # quarter; an openai-compatible server's cache is not known to be cheaper
    read, write = {ANTHROPIC: (0.3, 3.75), GEMINI: (0.75, 3.0)}.get(dialect, (3.0, 3.0))
    expected = (
        (2100 - 1800 - (250 if dialect is ANTHROPIC else 0)) * 3.0
        + 1800 * read
        + (250 if dialect is ANTHROPIC else 0) * write
        + 20 * 15.0
    ) / 1_000_000
    assert about["estimated_cost_usd"] == pytest.approx(expected, abs=1e-6)
