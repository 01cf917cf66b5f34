"""SQLite's schema, as migrations. Files made before migrations existed (no `schema_migrations`
table) already hold the tables of version 1, and maybe the tenant column of version 2: the
statements tolerate both (IF NOT EXISTS, and a column added only when missing)."""

from __future__ import annotations

import sqlite3

from outrider.server.core.principals import DEFAULT_TENANT
from outrider.server.core.storage.migrations import Migration, pending

_BOOKKEEPING = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_us INTEGER NOT NULL)"
)
# "ADD COLUMN IF NOT EXISTS" in SQLite's words: `_apply` runs it only when the column is missing.
_ADD_IF_MISSING = "-- add column if missing: "

MIGRATIONS = (
    Migration(
        1,
        "runs, events, interactions, artifacts",
        (
            "CREATE TABLE IF NOT EXISTS runs ("
            "id TEXT PRIMARY KEY, kind INTEGER NOT NULL, state INTEGER NOT NULL, "
            "create_us INTEGER NOT NULL, body BLOB NOT NULL)",
            "CREATE INDEX IF NOT EXISTS runs_by_time ON runs (create_us DESC, id DESC)",
            "CREATE INDEX IF NOT EXISTS runs_by_state ON runs (state)",
            "CREATE TABLE IF NOT EXISTS events ("
            "run_id TEXT NOT NULL, sequence INTEGER NOT NULL, body BLOB NOT NULL, "
            "PRIMARY KEY (run_id, sequence)) WITHOUT ROWID",
            "CREATE TABLE IF NOT EXISTS interactions ("
            "id TEXT PRIMARY KEY, run_id TEXT NOT NULL, state INTEGER NOT NULL, "
            "create_us INTEGER NOT NULL, body BLOB NOT NULL)",
            "CREATE INDEX IF NOT EXISTS interactions_by_time ON interactions (create_us, id)",
            "CREATE INDEX IF NOT EXISTS interactions_by_run ON interactions (run_id)",
            "CREATE TABLE IF NOT EXISTS artifacts ("
            "run_id TEXT NOT NULL, id TEXT NOT NULL, content_type TEXT NOT NULL, "
            "size INTEGER NOT NULL, PRIMARY KEY (run_id, id)) WITHOUT ROWID",
        ),
    ),
    Migration(
        2,
        "runs.tenant",
        (
            f"{_ADD_IF_MISSING}runs tenant TEXT NOT NULL DEFAULT '{DEFAULT_TENANT}'",
            "CREATE INDEX IF NOT EXISTS runs_by_tenant ON runs (tenant, create_us DESC, id DESC)",
        ),
    ),
    Migration(
        3,
        "checkpoints: where a run's agent was, in parts, to continue from there after a takeover",
        (
            "CREATE TABLE IF NOT EXISTS checkpoints ("
            "run_id TEXT NOT NULL, part TEXT NOT NULL, body TEXT NOT NULL, "
            "saved_us INTEGER NOT NULL, PRIMARY KEY (run_id, part))",
        ),
    ),
    Migration(
        4,
        "recipes: browser recipes, in the store rather than a file of their own",
        (
            "CREATE TABLE IF NOT EXISTS recipes ("
            "id TEXT PRIMARY KEY, key TEXT NOT NULL, body TEXT NOT NULL, "
            "failures INTEGER NOT NULL DEFAULT 0, replays INTEGER NOT NULL DEFAULT 0, "
            "retired INTEGER NOT NULL DEFAULT 0, create_us INTEGER NOT NULL)",
            "CREATE UNIQUE INDEX IF NOT EXISTS active_recipe ON recipes (key) WHERE retired = 0",
        ),
    ),
    Migration(
        5,
        "runs.created_by, request_id, request_digest: idempotent starts, one run per key",
        (
            f"{_ADD_IF_MISSING}runs created_by TEXT",
            f"{_ADD_IF_MISSING}runs request_id TEXT",
            f"{_ADD_IF_MISSING}runs request_digest TEXT",
            "CREATE UNIQUE INDEX IF NOT EXISTS runs_by_request "
            "ON runs (tenant, created_by, request_id) WHERE request_id IS NOT NULL",
            "CREATE INDEX IF NOT EXISTS runs_request_ids_by_time ON runs (create_us) "
            "WHERE request_id IS NOT NULL",
        ),
    ),
    Migration(
        6,
        "side_effects: what a browser run did that may change state elsewhere (its journal)",
        (
            "CREATE TABLE IF NOT EXISTS side_effects ("
            "run_id TEXT NOT NULL, number INTEGER NOT NULL, body BLOB NOT NULL, "
            "recorded_us INTEGER NOT NULL, PRIMARY KEY (run_id, number)) WITHOUT ROWID",
        ),
    ),
    Migration(
        7,
        "sessions: live browsers and research threads kept between runs, their runs' places "
        "in the session's stream and the session's own events",
        (
            "CREATE TABLE IF NOT EXISTS sessions ("
            "id TEXT PRIMARY KEY, tenant TEXT NOT NULL, kind INTEGER NOT NULL, "
            "state INTEGER NOT NULL, create_us INTEGER NOT NULL, body BLOB NOT NULL, "
            "owner INTEGER)",
            "CREATE INDEX IF NOT EXISTS sessions_by_tenant "
            "ON sessions (tenant, create_us DESC, id DESC)",
            "CREATE INDEX IF NOT EXISTS sessions_by_time ON sessions (create_us DESC, id DESC)",
            "CREATE TABLE IF NOT EXISTS session_runs ("
            "session_id TEXT NOT NULL, run_id TEXT NOT NULL, base INTEGER NOT NULL, "
            "final INTEGER, end_url TEXT NOT NULL DEFAULT '', end_title TEXT NOT NULL DEFAULT '', "
            "PRIMARY KEY (session_id, run_id)) WITHOUT ROWID",
            "CREATE TABLE IF NOT EXISTS session_events ("
            "session_id TEXT NOT NULL, sequence INTEGER NOT NULL, body BLOB NOT NULL, "
            "PRIMARY KEY (session_id, sequence)) WITHOUT ROWID",
        ),
    ),
    Migration(
        8,
        "sessions.created_by, request_id, request_digest: idempotent creates, one session per key",
        (
            f"{_ADD_IF_MISSING}sessions created_by TEXT",
            f"{_ADD_IF_MISSING}sessions request_id TEXT",
            f"{_ADD_IF_MISSING}sessions request_digest TEXT",
            "CREATE UNIQUE INDEX IF NOT EXISTS sessions_by_request "
            "ON sessions (tenant, created_by, request_id) WHERE request_id IS NOT NULL",
        ),
    ),
    Migration(
        9,
        "webhooks: endpoints, the outbox's messages (written with the state change they "
        "report) and their deliveries to each endpoint",
        (
            "CREATE TABLE IF NOT EXISTS webhook_endpoints ("
            "id TEXT PRIMARY KEY, tenant TEXT NOT NULL, url TEXT NOT NULL, "
            "event_types TEXT NOT NULL, description TEXT NOT NULL, carry_links INTEGER NOT NULL, "
            "enabled INTEGER NOT NULL, disabled_reason TEXT NOT NULL, failing_since_us INTEGER, "
            "create_us INTEGER NOT NULL, update_us INTEGER NOT NULL, credentials TEXT NOT NULL, "
            "kind TEXT NOT NULL, run_id TEXT, config_id TEXT, generation INTEGER NOT NULL)",
            "CREATE INDEX IF NOT EXISTS webhook_endpoints_by_tenant "
            "ON webhook_endpoints (tenant, kind, create_us, id)",
            "CREATE UNIQUE INDEX IF NOT EXISTS webhook_endpoints_by_run "
            "ON webhook_endpoints (run_id, config_id) WHERE run_id IS NOT NULL",
            "CREATE TABLE IF NOT EXISTS webhook_messages ("
            "id TEXT PRIMARY KEY, tenant TEXT NOT NULL, type TEXT NOT NULL, run_id TEXT, "
            "create_us INTEGER NOT NULL, data TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS webhook_deliveries ("
            "message_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, tenant TEXT NOT NULL, "
            "state INTEGER NOT NULL, attempts INTEGER NOT NULL, due_us INTEGER NOT NULL, "
            "claim TEXT, last_us INTEGER, last_code INTEGER, last_error TEXT, "
            "last_latency_us INTEGER, create_us INTEGER NOT NULL, "
            "PRIMARY KEY (message_id, endpoint_id))",
            "CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (due_us) "
            "WHERE state = 1",
            "CREATE INDEX IF NOT EXISTS webhook_deliveries_by_endpoint "
            "ON webhook_deliveries (endpoint_id, create_us, message_id)",
            "CREATE INDEX IF NOT EXISTS webhook_deliveries_by_claim ON webhook_deliveries (claim) "
            "WHERE claim IS NOT NULL",
        ),
    ),
    Migration(
        10,
        "interactions.answer_digest, lost, asked_again_as: answers recognised after a restart "
        "(a keyed digest of the accepted answer, never its values), as on PostgreSQL",
        (
            f"{_ADD_IF_MISSING}interactions answer_digest BLOB",
            f"{_ADD_IF_MISSING}interactions lost INTEGER NOT NULL DEFAULT 0",
            f"{_ADD_IF_MISSING}interactions asked_again_as TEXT",
        ),
    ),
    Migration(
        11,
        "profiles, credentials and credential_uses: the vault (core/vault/), sealed boxes and "
        "their metadata, and the audit trail of credential uses",
        (
            "CREATE TABLE IF NOT EXISTS profiles ("
            "tenant TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0, "
            "origins TEXT NOT NULL DEFAULT '[]', cookie_count INTEGER NOT NULL DEFAULT 0, "
            "size INTEGER NOT NULL DEFAULT 0, check_url TEXT NOT NULL DEFAULT '', "
            "check_text TEXT NOT NULL DEFAULT '', create_us INTEGER NOT NULL, "
            "update_us INTEGER NOT NULL, used_us INTEGER NOT NULL DEFAULT 0, "
            "writer TEXT NOT NULL DEFAULT '', writer_until_us INTEGER NOT NULL DEFAULT 0, "
            "key_id TEXT, wrapped_key BLOB, body BLOB, saved_by TEXT, "
            "PRIMARY KEY (tenant, name))",
            "CREATE INDEX IF NOT EXISTS profiles_by_update ON profiles (update_us)",
            "CREATE TABLE IF NOT EXISTS credentials ("
            "tenant TEXT NOT NULL, name TEXT NOT NULL, origins TEXT NOT NULL, "
            "parts TEXT NOT NULL, create_us INTEGER NOT NULL, update_us INTEGER NOT NULL, "
            "used_us INTEGER NOT NULL DEFAULT 0, key_id TEXT NOT NULL, "
            "wrapped_key BLOB NOT NULL, body BLOB NOT NULL, PRIMARY KEY (tenant, name))",
            "CREATE TABLE IF NOT EXISTS credential_uses ("
            "id INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL, credential TEXT NOT NULL, "
            "run_id TEXT NOT NULL, origin TEXT NOT NULL, part TEXT NOT NULL, "
            "field_kind TEXT NOT NULL, filled BOOLEAN NOT NULL, reason TEXT NOT NULL, "
            "use_us INTEGER NOT NULL)",
            "CREATE INDEX IF NOT EXISTS credential_uses_by_time "
            "ON credential_uses (tenant, use_us DESC, id DESC)",
        ),
    ),
)


def migrate(conn: sqlite3.Connection, now_us: int) -> list[int]:
    """Applies the missing migrations, each in its own transaction; returns their versions.
    BEGIN IMMEDIATE makes a second process starting on the same file wait, then skip them."""
    conn.execute(_BOOKKEEPING)
    done: list[int] = []
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            applied = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
            todo = pending(MIGRATIONS, applied)
            if not todo:
                conn.execute("COMMIT")
                return done
            _apply(conn, todo[0])
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_us) VALUES (?, ?, ?)",
                (todo[0].version, todo[0].name, now_us),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        done.append(todo[0].version)


def _apply(conn: sqlite3.Connection, migration: Migration) -> None:
    for statement in migration.statements:
        if statement.startswith(_ADD_IF_MISSING):
            table, column, definition = statement.removeprefix(_ADD_IF_MISSING).split(" ", 2)
            present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
        else:
            conn.execute(statement)
