"""Each adapter on its real SDK against a fake server of its provider's protocol: tool calls,
structured output, usage, images, retries on 429 and 500, timeouts, malformed tool arguments."""

from __future__ import annotations

import base64
import time
from collections.abc import AsyncIterator, Callable

import pytest

from outrider.server.models.base import (
    ChatModel,
    ImagePart,
    Message,
    ModelError,
    ModelRequest,
    ToolCall,
    ToolSpec,
)
from outrider.server.models.registry import resolve_model
from outrider.server.models.wire import INVALID_ARGUMENTS
from tests.models.dialects import Dialect
from tests.models.fake_providers import Answer, FakeProvider, error_body

CLICK = ToolSpec(
    "click",
    "Click an element.",
    {
        "type": "object",
        "properties": {"ref": {"type": "string"}},
        "required": ["ref"],
        "additionalProperties": False,
    },
)
VERDICT = {
    "type": "object",
    "properties": {"quality": {"type": "string", "enum": ["good", "bad"]}},
    "required": ["quality"],
}


ModelFactory = Callable[..., ChatModel]


@pytest.fixture
async def model() -> AsyncIterator[ModelFactory]:
    """Builds adapters against the fake provider and closes them after the test, as runs do."""
    built: list[ChatModel] = []

    def build(dialect: Dialect, fake: FakeProvider, **settings: object) -> ChatModel:
        built.append(resolve_model(dialect.spec(fake), dialect.provider_settings(fake, **settings)))
        return built[-1]

    yield build
    for chat in built:
        await chat.aclose()


def ask(*messages: Message, **kwargs: object) -> ModelRequest:
    return ModelRequest(messages=(Message("system", "Be brief."), *messages), **kwargs)  # type: ignore[arg-type]


async def test_tool_call_round_trip(
    dialect: Dialect, fake: FakeProvider, model: ModelFactory
) -> None:
    fake.queue = [dialect.call("click", {"ref": "E7"}), dialect.text("Done.")]
    chat = model(dialect, fake)
    first = await chat.generate(ask(Message("user", "Open the login page."), tools=(CLICK,)))
    assert first.finish_reason == "tool-calls"
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("click", {"ref": "E7"})]
    assert (first.usage.input_tokens, first.usage.output_tokens) == (33, 7)
    history = (
        Message("user", "Open the login page."),
        Message("assistant", first.text, tool_calls=first.tool_calls),
        Message("tool", "Clicked; the login page is open.", tool_call_id=first.tool_calls[0].id),
    )
    second = await chat.generate(ask(*history, tools=(CLICK,)))
    assert second.text == "Done." and second.finish_reason == "stop"
    assert second.usage.total_tokens == 25
    sent = fake.bodies
    assert dialect.tools_in(sent[0]) == ["click"]
    assert dialect.tool_results_in(sent[1]) == ["Clicked; the login page is open."]


async def test_structured_output_reply(
    dialect: Dialect, fake: FakeProvider, model: ModelFactory
) -> None:
    fake.queue = [dialect.structured({"quality": "good"})]
    reply = await model(dialect, fake).generate(
        ask(Message("user", "Judge it."), output_schema=VERDICT, role="judge")
    )
    assert reply.data == {"quality": "good"} and reply.finish_reason == "stop"
    assert dialect.schema_in(fake.bodies[0]) == VERDICT


async def test_an_image_part_is_sent(
    dialect: Dialect, fake: FakeProvider, model: ModelFactory
) -> None:
    shot = b"\xff\xd8\xff fake jpeg"
    fake.queue = [dialect.text("A shop.")]
    await model(dialect, fake).generate(
        ask(Message("user", "What is on the page?", images=(ImagePart(shot, "image/jpeg"),)))
    )
    assert [base64.urlsafe_b64decode(i) for i in dialect.images_in(fake.bodies[0])] == [shot]


async def test_a_429_with_retry_after_is_retried(
    dialect: Dialect, fake: FakeProvider, model: ModelFactory
) -> None:
    fake.queue = [
        Answer(error_body(429, "slow down"), status=429, headers={"retry-after": "0.3"}),
        dialect.text("Hello."),
    ]
    started = time.monotonic()
    reply = await model(dialect, fake).generate(ask(Message("user", "Hi")))
    assert reply.text == "Hello."
    assert len(fake.received) == 2
    assert time.monotonic() - started >= 0.3  # waited as told, not the 0.01 s backoff


async def test_a_500_is_retried(dialect: Dialect, fake: FakeProvider, model: ModelFactory) -> None:
    fake.queue = [Answer(error_body(500, "boom"), status=500), dialect.text("Hello.")]
    reply = await model(dialect, fake).generate(ask(Message("user", "Hi")))
    assert reply.text == "Hello." and len(fake.received) == 2


async def test_exhausted_retries_raise_a_clear_model_error(
    dialect: Dialect, fake: FakeProvider, model: ModelFactory
) -> None:
    fake.queue = [Answer(error_body(503, "overloaded"), status=503) for _ in range(3)]
    with pytest.raises(ModelError, match=r"HTTP 503.*overloaded.*gave up after 3 attempts"):
        await model(dialect, fake).generate(ask(Message("user", "Hi")))
    assert len(fake.received) == 3


async def test_a_client_error_is_not_retried(
    dialect: Dialect, fake: FakeProvider, model: ModelFactory
) -> None:
    fake.queue = [Answer(error_body(401, "bad key"), status=401)]
    with pytest.raises(ModelError, match=r"HTTP 401.*bad key"):
        await model(dialect, fake).generate(ask(Message("user", "Hi")))
    assert len(fake.received) == 1


async def test_a_timeout_is_retried_then_reported(
    dialect: Dialect, fake: FakeProvider, model: ModelFactory
) -> None:
    # A second for an attempt: an immediate answer gets it even under load; late ones 2 s
    fake.queue = [Answer(dialect.text("late"), delay=2.0), dialect.text("Hello.")]
    chat = model(dialect, fake, timeout=1.0, max_retries=1)
    assert (await chat.generate(ask(Message("user", "Hi")))).text == "Hello."
    fake.queue = [Answer(dialect.text("late"), delay=2.0) for _ in range(2)]
    with pytest.raises(ModelError, match=r"timed out.*gave up after 2 attempts"):
        await chat.generate(ask(Message("user", "Hi")))


async def test_malformed_tool_arguments_keep_the_raw_text(
    dialect: Dialect, fake: FakeProvider, model: ModelFactory
) -> None:
    fake.queue = [dialect.malformed("click")]
    reply = await model(dialect, fake).generate(ask(Message("user", "Click."), tools=(CLICK,)))
    [call] = reply.tool_calls
    assert isinstance(call, ToolCall) and list(call.arguments) == [INVALID_ARGUMENTS]
    if dialect.provider == "gemini":  # Gemini reports the call malformed, without its text
        assert call.name == "malformed_function_call"
        assert "MALFORMED_FUNCTION_CALL" in call.arguments[INVALID_ARGUMENTS]
    else:
        assert call.name == "click" and call.arguments[INVALID_ARGUMENTS] == '{"ref": "E1"'
