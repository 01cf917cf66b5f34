"""Where recipes live: in the run store (SQLite or PostgreSQL), shared by every replica using it.
One active recipe per key; a recipe that failed twice is kept as retired (for inspection) and
never replayed again.

Nothing in here is a caller's value: steps hold placeholders where a run used `data` or secrets,
and form-data answers never reach a step at all (see recipes.py)."""

from __future__ import annotations

import json
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

from outrider.server.core.storage import Store

RETIRE_AFTER_FAILURES = 2


@dataclass(frozen=True)
class Step:
    """One action of a recipe and the page state it was taken on."""

    action: str
    arguments: dict[str, Any]  # without refs; caller values as placeholders
    targets: list[list[str]]  # [role, accessible name] of each element the action names
    url: str  # scheme, host and path of the page (no query: it may carry form values)
    fingerprint: str  # of the view the action was chosen on (recipes.fingerprint)
    # The model turn that chose it: steps of one turn are replayed as one turn (0: on its own,
    # as every step of a recipe recorded before turns of several actions).
    turn: int = 0


@dataclass(frozen=True)
class Recipe:
    key: str
    task: str
    start_url: str
    plan: dict[str, Any]
    steps: list[Step]
    answer: str
    quality: str
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Recipe:
        raw = json.loads(text)
        raw["steps"] = [Step(**step) for step in raw["steps"]]
        return cls(**raw)


class RecipeStore:
    """Recipes as the run store keeps them (`Store.*_recipe`): in its database, so every replica
    sharing the store replays what any of them recorded."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def active(self, key: str) -> Recipe | None:
        body = self._store.active_recipe(key)
        return Recipe.from_json(body) if body is not None else None

    def keep(self, recipe: Recipe) -> bool:
        """Stores a new recipe unless its key already has an active one; True when stored."""
        return self._store.keep_recipe(recipe.id, recipe.key, recipe.to_json())

    def replayed(self, recipe_id: str) -> None:
        self._store.recipe_replayed(recipe_id)

    def failed(self, recipe_id: str) -> bool:
        """Counts a replay that handed over; True when the recipe is retired now."""
        return self._store.recipe_failed(recipe_id, RETIRE_AFTER_FAILURES)

    def counts(self, recipe_id: str) -> tuple[int, int, bool]:
        """(replays, failures, retired) of a recipe, for tests and operators."""
        found = self._store.recipe_counts(recipe_id)
        if found is None:
            raise KeyError(recipe_id)
        return found
