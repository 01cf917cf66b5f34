"""Provider specs resolve to adapters, or refuse with the setting that is missing."""

from __future__ import annotations

import grpc
import pytest

from outrider.server.core.errors import FailedPrecondition
from outrider.server.models.anthropic_model import AnthropicModel
from outrider.server.models.gemini_model import GeminiModel
from outrider.server.models.openai_compat import OpenAIChatModel
from outrider.server.models.registry import HOW_TO_CONFIGURE, resolve_model
from outrider.server.settings.providers import ProviderSettings
from outrider.v1 import params_pb2, run_service_pb2
from tests.conftest import HarnessFactory
from tests.support.harness import rich_error

NO_KEYS = ProviderSettings(openai_api_key="", anthropic_api_key="", gemini_api_key="")


@pytest.mark.parametrize(
    ("spec", "text"),
    [
        ("openai:gpt-4.1-mini", "OPENAI_API_KEY"),
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("gemini:gemini-2.5-flash", "GEMINI_API_KEY"),
        ("openai-compatible:llama3.1", "openai-compatible:<model>@<base-url>"),
        ("openai-compatible:@http://localhost:11434/v1", "openai-compatible:<model>@<base-url>"),
        ("openai:", "names no model"),
    ],
)
def test_missing_settings_are_named(spec: str, text: str) -> None:
    with pytest.raises(FailedPrecondition, match=text) as caught:
        resolve_model(spec, NO_KEYS)
    assert caught.value.reason == "MODEL_NOT_CONFIGURED"


def test_the_refusal_without_a_model_says_how_to_configure_one() -> None:
    with pytest.raises(FailedPrecondition) as caught:
        resolve_model("", NO_KEYS)
    for words in ("OUTRIDER_MODEL", "OPENAI_API_KEY", "openai-compatible:", "options.model"):
        assert words in str(caught.value) and words in HOW_TO_CONFIGURE


async def test_specs_resolve_to_their_adapters() -> None:
    keys = ProviderSettings(openai_api_key="k", anthropic_api_key="k", gemini_api_key="k")
    local = resolve_model("openai-compatible:llama3.1:8b@http://localhost:11434/v1", NO_KEYS)
    assert local.name == "openai-compatible:llama3.1:8b@http://localhost:11434/v1"
    built = [
        (local, OpenAIChatModel),
        (resolve_model("openai:gpt-4.1-mini", keys), OpenAIChatModel),
        (resolve_model("anthropic:claude-sonnet-4-5", keys), AnthropicModel),
        (resolve_model("gemini:gemini-2.5-flash", keys), GeminiModel),
    ]
    for model, adapter in built:
        assert isinstance(model, adapter)
        await model.aclose()


def test_keys_come_from_the_providers_usual_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-o")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-a")
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key")
    monkeypatch.setenv("OUTRIDER_PROVIDER_MAX_RETRIES", "5")
    settings = ProviderSettings()
    assert (settings.openai_api_key, settings.anthropic_api_key) == ("sk-o", "sk-a")
    assert settings.gemini_api_key == "g-key" and settings.max_retries == 5
    monkeypatch.setenv("GEMINI_API_KEY", "gm-key")
    assert ProviderSettings().gemini_api_key == "gm-key"
    assert isinstance(resolve_model("anthropic:claude-sonnet-4-5"), AnthropicModel)


async def test_a_server_refuses_a_run_whose_provider_has_no_key(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(production=True, model="openai:gpt-4.1-mini", providers=NO_KEYS)
    request = run_service_pb2.CreateRunRequest(automate=params_pb2.AutomateParams(task="t"))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await harness.runs.CreateRun(request)
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert error.reason == "MODEL_NOT_CONFIGURED" and "set OPENAI_API_KEY" in error.message
