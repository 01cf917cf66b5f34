"""Where recipes live: their own small SQLite file (`recipes.sqlite3` under the data dir), apart
from the run store, so they can be dropped or copied on their own. One active recipe per key;
a recipe that failed twice is kept as retired (for inspection) and never replayed again.

Nothing in here is a caller's value: steps hold placeholders where a run used `data` or secrets,
and form-data answers never reach a step at all (see recipes.py)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

RETIRE_AFTER_FAILURES = 2

_SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS recipes (
    id TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    body TEXT NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0,
    replays INTEGER NOT NULL DEFAULT 0,
    retired INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS active_recipe ON recipes (key) WHERE retired = 0;
"""


@dataclass(frozen=True)
class Step:
    """One action of a recipe and the page state it was taken on."""

    action: str
    arguments: dict[str, Any]  # without refs; caller values as placeholders
    targets: list[list[str]]  # [role, accessible name] of each element the action names
    url: str  # scheme, host and path of the page (no query: it may carry form values)
    fingerprint: str  # of the view the action was chosen on (recipes.fingerprint)


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
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as conn:
            conn.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        conn.execute("PRAGMA synchronous = NORMAL")  # WAL: a lost last write costs one recipe
        return conn

    def active(self, key: str) -> Recipe | None:
        with closing(self._connect()) as conn:
            row = conn.execute(
                "SELECT body FROM recipes WHERE key = ? AND retired = 0", (key,)
            ).fetchone()
        return Recipe.from_json(row[0]) if row else None

    def keep(self, recipe: Recipe) -> bool:
        """Stores a new recipe unless its key already has an active one; True when stored."""
        with closing(self._connect()) as conn:
            inserted = conn.execute(
                "INSERT OR IGNORE INTO recipes (id, key, body) VALUES (?, ?, ?)",
                (recipe.id, recipe.key, recipe.to_json()),
            )
            return inserted.rowcount == 1

    def replayed(self, recipe_id: str) -> None:
        with closing(self._connect()) as conn:
            conn.execute("UPDATE recipes SET replays = replays + 1 WHERE id = ?", (recipe_id,))

    def failed(self, recipe_id: str) -> bool:
        """Counts a replay that handed over; True when this retired the recipe."""
        with closing(self._connect()) as conn:
            conn.execute(
                "UPDATE recipes SET failures = failures + 1, "
                "retired = (failures + 1 >= ?) WHERE id = ?",
                (RETIRE_AFTER_FAILURES, recipe_id),
            )
            row = conn.execute("SELECT retired FROM recipes WHERE id = ?", (recipe_id,)).fetchone()
        return bool(row and row[0])

    def counts(self, recipe_id: str) -> tuple[int, int, bool]:
        """(replays, failures, retired) of a recipe, for tests and operators."""
        with closing(self._connect()) as conn:
            row = conn.execute(
                "SELECT replays, failures, retired FROM recipes WHERE id = ?", (recipe_id,)
            ).fetchone()
        if row is None:
            raise KeyError(recipe_id)
        return int(row[0]), int(row[1]), bool(row[2])
