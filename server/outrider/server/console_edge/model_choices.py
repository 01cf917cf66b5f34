"""The models the start form offers: the one place the console asks which models a principal
may name in `options.model`. They are the operator's offer (OUTRIDER_MODELS, or the principal's
tenant's `models` in the key file: `Principal.offered_models`), by name; the server's own model
comes first and sends no `options.model`. The form never lets a person type a provider string, a
file path or a URL, and the core checks the choice again at the start, as for every door.
"""

from __future__ import annotations

from dataclasses import dataclass

from outrider.server.core.principals import Principal
from outrider.server.settings import Settings

SERVER_MODEL = ""  # the form's value for "the server's own model": no options.model


@dataclass(frozen=True)
class ModelChoice:
    value: str  # what options.model says ("" for the server's model)
    label: str


def offered(settings: Settings, principal: Principal) -> list[ModelChoice]:
    """The models `principal` may start a run with, the server's own first."""
    own = _shown(settings.model)
    choices = [
        ModelChoice(SERVER_MODEL, f"The server's model ({own})" if own else "The server's model")
    ]
    for name, spec in sorted(principal.offered_models(settings.models).items()):
        shown = _shown(spec)
        label = name if shown in ("", name) else f"{name} ({shown})"
        choices.append(ModelChoice(name, label))
    return choices


def allowed(value: str, settings: Settings, principal: Principal) -> bool:
    return any(choice.value == value for choice in offered(settings, principal))


def _shown(spec: str) -> str:
    """A model spec as the form shows it: its provider alone when it holds a path or a URL."""
    return spec.partition(":")[0] if "/" in spec else spec
