"""Browser recipes in PostgreSQL: one active recipe per key, counted as replayed or failed, and
retired after too many failures."""

from __future__ import annotations

from outrider.server.core import clock
from outrider.server.core.storage.postgres.connection import (
    PostgresConnection,
)
from outrider.server.core.storage.postgres.writes import Write


class PostgresRecipes(PostgresConnection):
    def active_recipe(self, key: str) -> str | None:
        rows = self._rows("SELECT body FROM recipes WHERE key = %s AND NOT retired", (key,))
        return str(rows[0][0]) if rows else None

    def keep_recipe(self, recipe_id: str, key: str, body: str) -> bool:
        """At once, not behind the writer: the answer says whether another replica's recipe
        for the key came first (the unique index of active recipes decides)."""
        rows = self._rows(
            "INSERT INTO recipes (id, key, body, create_us) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING RETURNING id",
            (recipe_id, key, body, clock.now_us()),
        )
        return bool(rows)

    def recipe_replayed(self, recipe_id: str) -> None:
        self._writer.put(
            # never replayed: it counts (a replay would count the replay twice)
            Write(
                "UPDATE recipes SET replays = replays + 1 WHERE id = %s", (recipe_id,), replay=None
            )
        )

    def recipe_failed(self, recipe_id: str, retire_after: int) -> bool:
        """One UPDATE: a concurrent one waits for the row lock and then adds to the committed
        count, so failures recorded at once by two replicas are both counted. (A connection
        lost after the commit but before the answer makes `_rows` send it again: one failure
        then counts twice, retiring the recipe early, never replaying a bad one longer.)"""
        rows = self._rows(
            "UPDATE recipes SET failures = failures + 1, "
            "retired = retired OR failures + 1 >= %s WHERE id = %s RETURNING retired",
            (retire_after, recipe_id),
        )
        return bool(rows and rows[0][0])

    def recipe_counts(self, recipe_id: str) -> tuple[int, int, bool] | None:
        rows = self._rows(
            "SELECT replays, failures, retired FROM recipes WHERE id = %s", (recipe_id,)
        )
        return (int(rows[0][0]), int(rows[0][1]), bool(rows[0][2])) if rows else None
