"""Browser recipes in the SQLite store: one active recipe per key, counted as replayed or failed,
and retired after too many failures."""

from __future__ import annotations

from outrider.server.core import clock
from outrider.server.core.storage.sqlite.connection import SqliteConnection


class SqliteRecipes(SqliteConnection):
    def active_recipe(self, key: str) -> str | None:
        row = self._conn.execute(
            "SELECT body FROM recipes WHERE key = ? AND retired = 0", (key,)
        ).fetchone()
        return str(row[0]) if row else None

    def keep_recipe(self, recipe_id: str, key: str, body: str) -> bool:
        self._begin_write()
        inserted = self._conn.execute(
            "INSERT OR IGNORE INTO recipes (id, key, body, create_us) VALUES (?, ?, ?, ?)",
            (recipe_id, key, body, clock.now_us()),
        )
        return inserted.rowcount == 1

    def recipe_replayed(self, recipe_id: str) -> None:
        self._write("UPDATE recipes SET replays = replays + 1 WHERE id = ?", (recipe_id,))

    def recipe_failed(self, recipe_id: str, retire_after: int) -> bool:
        """One process and one connection: the update and its read see nobody else's write."""
        self._write(
            "UPDATE recipes SET failures = failures + 1, retired = (failures + 1 >= ?) "
            "WHERE id = ?",
            (retire_after, recipe_id),
        )
        counts = self.recipe_counts(recipe_id)
        return counts is not None and counts[2]

    def recipe_counts(self, recipe_id: str) -> tuple[int, int, bool] | None:
        row = self._conn.execute(
            "SELECT replays, failures, retired FROM recipes WHERE id = ?", (recipe_id,)
        ).fetchone()
        return (int(row[0]), int(row[1]), bool(row[2])) if row else None
