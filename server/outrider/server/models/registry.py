"""Turns a model spec string from configuration or a request into a ChatModel.

Specs look like "provider:name":
    openai:<model>                        OpenAI (OPENAI_API_KEY; OPENAI_BASE_URL optional)
    openai-compatible:<model>@<base-url>  any OpenAI-compatible server (vLLM, Ollama, llama.cpp)
    anthropic:<model>                     Anthropic (ANTHROPIC_API_KEY)
    gemini:<model>                        Google Gemini (GEMINI_API_KEY or GOOGLE_API_KEY)
    scripted:<path>                       replay the scenario file at <path> (tests and demos)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from outrider.server.core.errors import FailedPrecondition
from outrider.server.models.base import ChatModel
from outrider.server.models.observed import ObservedModel
from outrider.server.models.resilience import RetryPolicy
from outrider.server.models.scripted import ScriptedModel
from outrider.server.settings.providers import ProviderSettings

HOW_TO_CONFIGURE = (
    "no model is configured: set OUTRIDER_MODEL (e.g. openai:gpt-4.1-mini with OPENAI_API_KEY, "
    "anthropic:<model> with ANTHROPIC_API_KEY, gemini:<model> with GEMINI_API_KEY, "
    "openai-compatible:<model>@http://localhost:11434/v1 for a local server, or "
    "scripted:/path/to/scenario.yaml), or offer callers models with OUTRIDER_MODELS for "
    "options.model"
)
PROVIDERS = ("openai", "openai-compatible", "anthropic", "gemini", "scripted")


def resolve_model(spec: str, providers: ProviderSettings | None = None) -> ChatModel:
    """A fresh model for one run (the caller closes it with `aclose`); raises FailedPrecondition
    when the spec cannot be served. `providers` defaults to the provider settings read from the
    environment."""
    return _model_factory(spec, providers)()


def check_model(spec: str, providers: ProviderSettings | None = None) -> None:
    """Raises what `resolve_model` would, without creating a provider client (nothing to close)."""
    _model_factory(spec, providers)


ModelFactory = Callable[[], ChatModel]


def _model_factory(spec: str, providers: ProviderSettings | None) -> ModelFactory:
    """Checks the spec, then returns what builds its model."""
    if not spec:
        raise FailedPrecondition(HOW_TO_CONFIGURE, reason="MODEL_NOT_CONFIGURED")
    provider, _, name = spec.partition(":")
    if provider == "scripted":
        path = Path(name)
        if not path.is_file():
            raise FailedPrecondition(
                f"scripted model file {name!r} does not exist", reason="MODEL_NOT_CONFIGURED"
            )
        scripted = ScriptedModel.from_file(path)  # parsed now: a broken file refuses the run
        return lambda: scripted
    if provider not in PROVIDERS:
        raise FailedPrecondition(
            f"unknown model provider {provider!r} in {spec!r}; use one of {', '.join(PROVIDERS)}",
            reason="MODEL_UNAVAILABLE",
        )
    if not name:
        raise FailedPrecondition(
            f"model spec {spec!r} names no model, e.g. {provider}:<model>",
            reason="MODEL_NOT_CONFIGURED",
        )
    settings = providers if providers is not None else ProviderSettings()
    return _provider_factory(spec, provider, name, settings)


def _provider_factory(
    spec: str, provider: str, name: str, settings: ProviderSettings
) -> ModelFactory:
    policy = RetryPolicy(
        timeout=settings.timeout,
        max_retries=settings.max_retries,
        base_delay=settings.retry_base_delay,
        max_delay=settings.retry_max_delay,
    )
    if provider == "openai-compatible":
        model, _, base_url = name.partition("@")
        if not model or not base_url.startswith(("http://", "https://")):
            raise FailedPrecondition(
                f"model spec {spec!r} needs the form openai-compatible:<model>@<base-url>, e.g. "
                "openai-compatible:llama3.1@http://localhost:11434/v1",
                reason="MODEL_NOT_CONFIGURED",
            )
        from outrider.server.models.openai_compat import OpenAIChatModel

        key = settings.openai_compatible_api_key or "not-needed"
        return functools.partial(OpenAIChatModel, spec, model, key, base_url, policy)
    if provider == "openai":
        _require_key(spec, settings.openai_api_key, "OPENAI_API_KEY")
        from outrider.server.models.openai_compat import OpenAIChatModel

        return functools.partial(
            OpenAIChatModel, spec, name, settings.openai_api_key, settings.openai_base_url, policy
        )
    if provider == "anthropic":
        _require_key(spec, settings.anthropic_api_key, "ANTHROPIC_API_KEY")
        from outrider.server.models.anthropic_model import AnthropicModel

        return functools.partial(
            AnthropicModel,
            spec,
            name,
            settings.anthropic_api_key,
            settings.anthropic_base_url,
            policy,
            settings.max_output_tokens,
        )
    _require_key(spec, settings.gemini_api_key, "GEMINI_API_KEY (or GOOGLE_API_KEY)")
    from outrider.server.models.gemini_model import GeminiModel

    return functools.partial(
        GeminiModel, spec, name, settings.gemini_api_key, settings.gemini_base_url, policy
    )


def _require_key(spec: str, key: str, variable: str) -> None:
    if not key:
        raise FailedPrecondition(
            f"model {spec!r} needs an API key: set {variable}", reason="MODEL_NOT_CONFIGURED"
        )


def model_spec(default: str, role_models: dict[str, str], role: str, override: str) -> str:
    """The spec a role uses: the run's override, else the role's setting, else the default."""
    return override or role_models.get(role, "") or default


class RunModels:
    """The models of one run: one instance per distinct spec, chosen per role.

    Sharing instances matters for scripted models, whose turns are keyed by role within one file.
    """

    def __init__(
        self,
        default: str,
        role_models: dict[str, str],
        override: str,
        providers: ProviderSettings | None = None,
    ) -> None:
        self._default = default
        self._role_models = role_models
        self._override = override
        self._providers = providers
        self._instances: dict[str, ChatModel] = {}

    def for_role(self, role: str) -> ChatModel:
        spec = self._spec(role)
        if spec not in self._instances:
            model = resolve_model(spec, self._providers)
            prices = (self._providers or ProviderSettings()).prices
            self._instances[spec] = ObservedModel(model, prices)
        return self._instances[spec]

    def _spec(self, role: str) -> str:
        return model_spec(self._default, self._role_models, role, self._override)

    def check(self, roles: tuple[str, ...]) -> None:
        """Checks every role's model spec now, so a misconfiguration refuses the run at once."""
        for role in roles:
            check_model(self._spec(role), self._providers)

    async def aclose(self) -> None:
        """Closes the provider clients (their pooled connections) of this run's models."""
        instances, self._instances = list(self._instances.values()), {}
        for model in instances:
            await model.aclose()
