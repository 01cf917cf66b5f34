"""The models the start form offers: the one place the console asks which models a principal may
name in `options.model`.

Today the server keeps no list of models its callers may choose (issue 33 adds it: OUTRIDER_MODELS
and a tenant's `models` in the key file, read by `Principal.offered_models(settings.models)`), so
the form offers the server's own model only and sends no `options.model`: it never lets a person
type a provider string, a file path or a URL. When that list exists, `offered` returns it and the
form offers each name; the core checks the choice again at the start, as for every door.
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
    spec = settings.model
    shown = spec.partition(":")[0] if "/" in spec else spec  # never a path or a URL
    label = f"The server's model ({shown})" if shown else "The server's model"
    return [ModelChoice(SERVER_MODEL, label)]


def allowed(value: str, settings: Settings, principal: Principal) -> bool:
    return any(choice.value == value for choice in offered(settings, principal))
