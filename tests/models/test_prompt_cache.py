"""Prompt caching and several tool calls per reply, on each provider's real SDK against its fake
server: cached usage is read from each provider's own fields, Anthropic requests carry cache
breakpoints where the request says, OpenAI gets a cache key, and a reply's several tool calls
all arrive in order."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from outrider.server.models.base import ChatModel, Message, ModelRequest, ToolSpec
from outrider.server.models.registry import resolve_model
from tests.models.dialects import ANTHROPIC, GEMINI, OPENAI, Dialect
from tests.models.fake_providers import FakeProvider

FILL = ToolSpec(
    "fill",
    "Fill a field.",
    {
        "type": "object",
        "properties": {"ref": {"type": "string"}, "value": {"type": "string"}},
        "required": ["ref", "value"],
    },
)
CONVERSATION = (
    Message("system", "Static rules."),
    Message("system", "Constraints of this run."),
    Message("user", "Task: sign up."),
    Message("user", "<<<EXTERNAL_CONTENT the form EXTERNAL_CONTENT>>>"),
)

ModelFactory = Callable[..., ChatModel]


@pytest.fixture
async def model() -> AsyncIterator[ModelFactory]:
    built: list[ChatModel] = []

    def build(spec: str, settings: Any) -> ChatModel:
        built.append(resolve_model(spec, settings))
        return built[-1]

    yield build
    for chat in built:
        await chat.aclose()


async def test_cached_usage_is_read_from_each_providers_fields(
    dialect: Dialect, fake: FakeProvider, model: ModelFactory
) -> None:
    fake.queue = [dialect.calls([("fill", {"ref": "E1", "value": "Ada"})], (2000, 30), (1500, 300))]
    chat = model(dialect.spec(fake), dialect.provider_settings(fake))
    reply = await chat.generate(ModelRequest(CONVERSATION, tools=(FILL,), cache_points=(0, 2)))
    usage = reply.usage
    # every prompt token counts as input (Anthropic's own input_tokens leaves the cached out)
    assert (usage.input_tokens, usage.output_tokens) == (2000, 30)
    assert usage.cached_input_tokens == 1500
    written = 300 if dialect is ANTHROPIC else 0  # only Anthropic reports (and bills) writes
    assert usage.cache_write_tokens == written
    assert usage.uncached_input_tokens == 500 - written


async def test_several_tool_calls_of_one_reply_arrive_in_order(
    dialect: Dialect, fake: FakeProvider, model: ModelFactory
) -> None:
    calls = [
        ("fill", {"ref": "E1", "value": "Ada"}),
        ("fill", {"ref": "E2", "value": "ada@example.com"}),
        ("click", {"ref": "E3"}),
    ]
    fake.queue = [dialect.calls(calls, (100, 20), (0, 0)), dialect.calls(calls, (100, 20), (0, 0))]
    chat = model(dialect.spec(fake), dialect.provider_settings(fake))
    first = await chat.generate(ModelRequest(CONVERSATION, tools=(FILL,)))
    assert [(c.name, c.arguments) for c in first.tool_calls] == calls
    second = await chat.generate(ModelRequest(CONVERSATION, tools=(FILL,)))
    assert len({c.id for c in first.tool_calls}) == 3  # each result can name its call
    if dialect is GEMINI:  # Gemini sends no ids: ours are unique across the run's replies
        ids = [c.id for c in (*first.tool_calls, *second.tool_calls)]
        assert len(set(ids)) == len(ids)


def _breakpoints(value: Any, path: str = "") -> list[str]:
    """Where the request JSON carries cache_control, as paths."""
    found: list[str] = []
    if isinstance(value, dict):
        if "cache_control" in value:
            found.append(path)
        for key, item in value.items():
            found += _breakpoints(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _breakpoints(item, f"{path}[{index}]")
    return found


async def test_anthropic_requests_mark_the_cache_points(
    fake: FakeProvider, model: ModelFactory
) -> None:
    history = (
        *CONVERSATION[:3],
        Message("user", "<<<EXTERNAL_CONTENT page one EXTERNAL_CONTENT>>>"),
    )
    fake.queue = [ANTHROPIC.text("ok")]
    chat = model(ANTHROPIC.spec(fake), ANTHROPIC.provider_settings(fake))
    await chat.generate(ModelRequest(history, tools=(FILL,), cache_points=(0, 2)))
    [received] = fake.received
    assert b'"cache_control":{"type":"ephemeral"}' in received.raw.replace(b" ", b"")
    # the static rules (caching the tools before them) and the task; the page is not cached
    assert _breakpoints(received.body) == [".messages[0].content[0]", ".system[0]"]
    assert received.body["system"][1] == {"type": "text", "text": "Constraints of this run."}
    assert received.body["messages"][0]["content"][1]["text"].endswith("EXTERNAL_CONTENT>>>")


async def test_without_cache_points_anthropic_requests_carry_no_breakpoint(
    fake: FakeProvider, model: ModelFactory
) -> None:
    fake.queue = [ANTHROPIC.text("ok")]
    chat = model(ANTHROPIC.spec(fake), ANTHROPIC.provider_settings(fake))
    await chat.generate(ModelRequest(CONVERSATION, tools=(FILL,)))
    assert b"cache_control" not in fake.received[0].raw


async def test_openai_gets_one_cache_key_per_prefix_and_compatible_servers_none(
    fake: FakeProvider, model: ModelFactory
) -> None:
    settings = OPENAI.provider_settings(
        fake, openai_api_key="sk-test", openai_base_url=f"{fake.url}/v1"
    )
    fake.queue = [OPENAI.text("ok") for _ in range(4)]
    openai = model("openai:gpt-fake", settings)
    later = (*CONVERSATION, Message("assistant", "Filling."), Message("user", "page two"))
    for messages in (CONVERSATION, later):
        await openai.generate(ModelRequest(messages, tools=(FILL,), cache_points=(2,)))
    other_task = (*CONVERSATION[:2], Message("user", "Task: log in."), CONVERSATION[3])
    await openai.generate(ModelRequest(other_task, tools=(FILL,), cache_points=(2,)))
    await model(OPENAI.spec(fake), settings).generate(
        ModelRequest(CONVERSATION, tools=(FILL,), cache_points=(2,))
    )
    keys = [body.get("prompt_cache_key") for body in fake.bodies]
    assert keys[0] and keys[0] == keys[1] and keys[2] not in (None, keys[0])
    assert keys[3] is None  # openai-compatible: a server that may not know the parameter


async def test_one_tool_call_per_reply_is_asked_of_openai_and_anthropic(
    fake: FakeProvider, model: ModelFactory
) -> None:
    for dialect in (OPENAI, ANTHROPIC):
        fake.queue = [dialect.text("ok")]
        chat = model(dialect.spec(fake), dialect.provider_settings(fake))
        await chat.generate(ModelRequest(CONVERSATION, tools=(FILL,), one_tool_call=True))
    openai_body, anthropic_body = fake.bodies
    assert openai_body["parallel_tool_calls"] is False
    assert anthropic_body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}


def test_the_fake_bodies_report_cache_tokens_in_each_providers_words() -> None:
    """Guards the fakes themselves: the field names are the providers' documented ones."""
    openai = json.dumps(OPENAI.calls([], (10, 1), (5, 0)))
    anthropic = ANTHROPIC.calls([], (10, 1), (5, 2))["usage"]
    assert '"prompt_tokens_details": {"cached_tokens": 5}' in openai
    assert anthropic == {
        "input_tokens": 3,
        "output_tokens": 1,
        "cache_read_input_tokens": 5,
        "cache_creation_input_tokens": 2,
    }
