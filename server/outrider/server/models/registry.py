"""Turns a model spec string from configuration or a request into a ChatModel.

Specs look like "provider:name". Available now:
    scripted:<path>   replay the scenario file at <path> (tests and demos)
Other providers arrive with their adapters; until then they are refused with a clear message.
"""

from __future__ import annotations

from pathlib import Path

from outrider.server.core.errors import FailedPrecondition
from outrider.server.models.base import ChatModel
from outrider.server.models.scripted import ScriptedModel

HOW_TO_CONFIGURE = (
    "no model is configured: set OUTRIDER_MODEL (e.g. scripted:/path/to/scenario.yaml) "
    "or pass options.model in the request"
)


def resolve_model(spec: str) -> ChatModel:
    """A fresh model for one run; raises FailedPrecondition when the spec cannot be served."""
    if not spec:
        raise FailedPrecondition(HOW_TO_CONFIGURE, reason="MODEL_NOT_CONFIGURED")
    provider, _, name = spec.partition(":")
    if provider == "scripted":
        path = Path(name)
        if not path.is_file():
            raise FailedPrecondition(
                f"scripted model file {name!r} does not exist", reason="MODEL_NOT_CONFIGURED"
            )
        return ScriptedModel.from_file(path)
    raise FailedPrecondition(
        f"model provider {provider!r} is not available in this build", reason="MODEL_UNAVAILABLE"
    )


def model_spec(default: str, role_models: dict[str, str], role: str, override: str) -> str:
    """The spec a role uses: the run's override, else the role's setting, else the default."""
    return override or role_models.get(role, "") or default


class RunModels:
    """The models of one run: one instance per distinct spec, chosen per role.

    Sharing instances matters for scripted models, whose turns are keyed by role within one file.
    """

    def __init__(self, default: str, role_models: dict[str, str], override: str) -> None:
        self._default = default
        self._role_models = role_models
        self._override = override
        self._instances: dict[str, ChatModel] = {}

    def for_role(self, role: str) -> ChatModel:
        spec = model_spec(self._default, self._role_models, role, self._override)
        if spec not in self._instances:
            self._instances[spec] = resolve_model(spec)
        return self._instances[spec]

    def check(self, roles: tuple[str, ...]) -> None:
        """Resolves every role's model now, so a misconfiguration refuses the run at once."""
        for role in roles:
            self.for_role(role)
