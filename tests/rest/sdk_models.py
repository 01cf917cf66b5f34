"""Strict checks of event JSON against the official tabstack SDK's pydantic models."""

from __future__ import annotations

from typing import Any, get_args

from pydantic import BaseModel, TypeAdapter
from tabstack.types import AutomateEvent, ResearchEvent

# Fields Outrider adds beyond the seed (the SDK keeps them in `model_extra`, so clients are fine).
OUR_EXTENSIONS = frozenset(
    {
        "groundingSupports",
        "removedCitations",
        "removedStatements",
        "modelUsage",
        "estimatedCostUsd",
        "spanId",
        "answerUrl",  # a one-time answer link, for callers that opted in to our events
        "message",  # complete of a run resumed after a replica loss says so, to every caller
    }
)

AUTOMATE: TypeAdapter[Any] = TypeAdapter(AutomateEvent)  # type: ignore[arg-type]
RESEARCH: TypeAdapter[Any] = TypeAdapter(ResearchEvent)  # type: ignore[arg-type]


def _members(union: Any) -> dict[str, type[BaseModel]]:
    """Event name -> the SDK model of that event."""
    if hasattr(union, "__metadata__"):  # Annotated[Union[...], discriminator]
        union = get_args(union)[0]
    found = {}
    for member in get_args(union):
        literal = member.model_fields["event"].annotation
        found[get_args(literal)[0]] = member
    return found


_MODELS = {id(AUTOMATE): _members(AutomateEvent), id(RESEARCH): _members(ResearchEvent)}


def validate(adapter: TypeAdapter[Any], name: str, data: Any) -> BaseModel:
    """The SDK model of event `name`; fails on a missing or mistyped field, and on any key the
    SDK does not know (a casing mistake would land in `model_extra`)."""
    model = _MODELS[id(adapter)][name].model_validate({"event": name, "data": data})
    assert adapter.validate_python({"event": name, "data": data})
    assert isinstance(model, BaseModel)
    unknown = extras(model)
    assert not unknown, f"{name}: keys the SDK does not know: {unknown}"
    return model


def extras(value: Any, path: str = "") -> list[str]:
    found: list[str] = []
    if isinstance(value, BaseModel):
        found += [f"{path}.{k}" for k in (value.model_extra or {}) if k not in OUR_EXTENSIONS]
        for key in type(value).model_fields:
            found += extras(getattr(value, key), f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += extras(item, f"{path}[{index}]")
    return found
