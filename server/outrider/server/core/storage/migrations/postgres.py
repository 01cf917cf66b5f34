"""PostgreSQL's schema, as migrations: the same tables as SQLite's, in PostgreSQL's types. All
pending migrations apply in one transaction under an advisory lock, so replicas starting together
apply each exactly once and none sees half a schema."""

from __future__ import annotations

import psycopg

from outrider.server.core.principals import DEFAULT_TENANT
from outrider.server.core.storage.migrations import Migration, pending

# Any constant shared by every replica; "outrider" in ASCII, to be recognisable in pg_locks.
_LOCK_KEY = 0x6F75747269646572

_BOOKKEEPING = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_us BIGINT NOT NULL)"
)

MIGRATIONS = (
    Migration(
        1,
        "runs, events, interactions, artifacts",
        (
            "CREATE TABLE runs ("
            "id TEXT PRIMARY KEY, kind INTEGER NOT NULL, state INTEGER NOT NULL, "
            "create_us BIGINT NOT NULL, body BYTEA NOT NULL)",
            "CREATE INDEX runs_by_time ON runs (create_us DESC, id DESC)",
            "CREATE INDEX runs_by_state ON runs (state)",
            "CREATE TABLE events ("
            "run_id TEXT NOT NULL, sequence BIGINT NOT NULL, body BYTEA NOT NULL, "
            "PRIMARY KEY (run_id, sequence))",
            "CREATE TABLE interactions ("
            "id TEXT PRIMARY KEY, run_id TEXT NOT NULL, state INTEGER NOT NULL, "
            "create_us BIGINT NOT NULL, body BYTEA NOT NULL)",
            "CREATE INDEX interactions_by_time ON interactions (create_us, id)",
            "CREATE INDEX interactions_by_run ON interactions (run_id)",
            "CREATE TABLE artifacts ("
            "run_id TEXT NOT NULL, id TEXT NOT NULL, content_type TEXT NOT NULL, "
            "size BIGINT NOT NULL, PRIMARY KEY (run_id, id))",
        ),
    ),
    Migration(
        2,
        "runs.tenant",
        (
            f"ALTER TABLE runs ADD COLUMN tenant TEXT NOT NULL DEFAULT '{DEFAULT_TENANT}'",
            "CREATE INDEX runs_by_tenant ON runs (tenant, create_us DESC, id DESC)",
        ),
    ),
    Migration(
        3,
        "runs.owner: the process that last saved a run, by its presence lock key",
        ("ALTER TABLE runs ADD COLUMN owner BIGINT",),
    ),
    Migration(
        4,
        "replicas: where each process (by presence key) takes relayed calls",
        (
            "CREATE TABLE replicas (owner BIGINT PRIMARY KEY, address TEXT NOT NULL, "
            "role TEXT NOT NULL DEFAULT 'all', announced_us BIGINT NOT NULL)",
            "CREATE INDEX runs_by_owner ON runs (owner, state)",
        ),
    ),
    Migration(
        5,
        "runs.takeovers: how many times live replicas took a lost run over",
        ("ALTER TABLE runs ADD COLUMN takeovers INTEGER NOT NULL DEFAULT 0",),
    ),
    Migration(
        6,
        "checkpoints: where a run's agent was, in parts, to continue from there after a takeover",
        (
            # TEXT, not JSONB: JSONB refuses the escaped NUL a fetched page's text may hold
            "CREATE TABLE checkpoints ("
            "run_id TEXT NOT NULL, part TEXT NOT NULL, body TEXT NOT NULL, "
            "saved_us BIGINT NOT NULL, PRIMARY KEY (run_id, part))",
        ),
    ),
    Migration(
        7,
        "artifact_chunks: artifact bytes in the database, for every replica to read",
        (
            "CREATE TABLE artifact_chunks ("
            "run_id TEXT NOT NULL, artifact_id TEXT NOT NULL, chunk INTEGER NOT NULL, "
            "data BYTEA NOT NULL, PRIMARY KEY (run_id, artifact_id, chunk))",
            # Screenshots (JPEG) and most downloads are compressed already: stored out of line
            # without PostgreSQL trying to compress them again.
            "ALTER TABLE artifact_chunks ALTER COLUMN data SET STORAGE EXTERNAL",
        ),
    ),
    Migration(
        8,
        "recipes: browser recipes shared by every replica",
        (
            "CREATE TABLE recipes ("
            "id TEXT PRIMARY KEY, key TEXT NOT NULL, body TEXT NOT NULL, "
            "failures INTEGER NOT NULL DEFAULT 0, replays INTEGER NOT NULL DEFAULT 0, "
            "retired BOOLEAN NOT NULL DEFAULT FALSE, create_us BIGINT NOT NULL)",
            "CREATE UNIQUE INDEX active_recipe ON recipes (key) WHERE NOT retired",
        ),
    ),
    Migration(
        9,
        "runs.created_by, request_id, request_digest: idempotent starts, one run per key",
        (
            "ALTER TABLE runs ADD COLUMN created_by TEXT",
            "ALTER TABLE runs ADD COLUMN request_id TEXT",
            "ALTER TABLE runs ADD COLUMN request_digest TEXT",
            "CREATE UNIQUE INDEX runs_by_request ON runs (tenant, created_by, request_id) "
            "WHERE request_id IS NOT NULL",
            "CREATE INDEX runs_request_ids_by_time ON runs (create_us) "
            "WHERE request_id IS NOT NULL",
        ),
    ),
    Migration(
        10,
        "side_effects: what a browser run did that may change state elsewhere, journaled before "
        "it happened, so a replica taking the run over does not repeat it blindly; "
        "replicas.capacity: the runs each may hold, so takeovers spread by room",
        (
            "CREATE TABLE side_effects ("
            "run_id TEXT NOT NULL, number INTEGER NOT NULL, body BYTEA NOT NULL, "
            "recorded_us BIGINT NOT NULL, PRIMARY KEY (run_id, number))",
            # 0: not said (a replica of an earlier version): room unknown
            "ALTER TABLE replicas ADD COLUMN capacity INTEGER NOT NULL DEFAULT 0",
        ),
    ),
    Migration(
        11,
        "shared_secrets: the signing key every replica shares (page tokens, answer links, "
        "console sessions) when OUTRIDER_PAGE_TOKEN_SECRET is unset",
        (
            "CREATE TABLE shared_secrets ("
            "name TEXT PRIMARY KEY, value TEXT NOT NULL, create_us BIGINT NOT NULL)",
        ),
    ),
    Migration(
        12,
        "sessions: live browsers and research threads kept between runs (owned, like runs, by "
        "the presence key of the replica executing them), their runs' places in the session's "
        "stream and the session's own events",
        (
            "CREATE TABLE sessions ("
            "id TEXT PRIMARY KEY, tenant TEXT NOT NULL, kind INTEGER NOT NULL, "
            "state INTEGER NOT NULL, create_us BIGINT NOT NULL, body BYTEA NOT NULL, owner BIGINT)",
            "CREATE INDEX sessions_by_tenant ON sessions (tenant, create_us DESC, id DESC)",
            "CREATE INDEX sessions_by_time ON sessions (create_us DESC, id DESC)",
            "CREATE TABLE session_runs ("
            "session_id TEXT NOT NULL, run_id TEXT NOT NULL, base BIGINT NOT NULL, "
            "final BIGINT, end_url TEXT NOT NULL DEFAULT '', end_title TEXT NOT NULL DEFAULT '', "
            "PRIMARY KEY (session_id, run_id))",
            "CREATE TABLE session_events ("
            "session_id TEXT NOT NULL, sequence BIGINT NOT NULL, body BYTEA NOT NULL, "
            "PRIMARY KEY (session_id, sequence))",
        ),
    ),
    Migration(
        13,
        "sessions.created_by, request_id, request_digest: idempotent creates, one session per key",
        (
            "ALTER TABLE sessions ADD COLUMN created_by TEXT",
            "ALTER TABLE sessions ADD COLUMN request_id TEXT",
            "ALTER TABLE sessions ADD COLUMN request_digest TEXT",
            "CREATE UNIQUE INDEX sessions_by_request ON sessions (tenant, created_by, request_id) "
            "WHERE request_id IS NOT NULL",
        ),
    ),
    Migration(
        14,
        "webhooks: endpoints, the outbox's messages (written with the state change they "
        "report) and their deliveries to each endpoint",
        (
            "CREATE TABLE webhook_endpoints ("
            "id TEXT PRIMARY KEY, tenant TEXT NOT NULL, url TEXT NOT NULL, "
            "event_types TEXT NOT NULL, description TEXT NOT NULL, carry_links BOOLEAN NOT NULL, "
            "enabled BOOLEAN NOT NULL, disabled_reason TEXT NOT NULL, failing_since_us BIGINT, "
            "create_us BIGINT NOT NULL, update_us BIGINT NOT NULL, credentials TEXT NOT NULL, "
            "kind TEXT NOT NULL, run_id TEXT, config_id TEXT, generation INTEGER NOT NULL)",
            "CREATE INDEX webhook_endpoints_by_tenant "
            "ON webhook_endpoints (tenant, kind, create_us, id)",
            "CREATE UNIQUE INDEX webhook_endpoints_by_run "
            "ON webhook_endpoints (run_id, config_id) WHERE run_id IS NOT NULL",
            "CREATE TABLE webhook_messages ("
            "id TEXT PRIMARY KEY, tenant TEXT NOT NULL, type TEXT NOT NULL, run_id TEXT, "
            "create_us BIGINT NOT NULL, data TEXT NOT NULL)",
            "CREATE TABLE webhook_deliveries ("
            "message_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, tenant TEXT NOT NULL, "
            "state INTEGER NOT NULL, attempts INTEGER NOT NULL, due_us BIGINT NOT NULL, "
            "claim TEXT, last_us BIGINT, last_code INTEGER, last_error TEXT, "
            "last_latency_us BIGINT, create_us BIGINT NOT NULL, "
            "PRIMARY KEY (message_id, endpoint_id))",
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_us) WHERE state = 1",
            "CREATE INDEX webhook_deliveries_by_endpoint "
            "ON webhook_deliveries (endpoint_id, create_us, message_id)",
            "CREATE INDEX webhook_deliveries_by_claim ON webhook_deliveries (claim) "
            "WHERE claim IS NOT NULL",
        ),
    ),
    Migration(
        15,
        "interactions.answer_digest, lost, asked_again_as: answers recognised by every replica "
        "(a keyed digest of the accepted answer, never its values), and questions a resumed "
        "run asked again after its replica was lost",
        (
            "ALTER TABLE interactions ADD COLUMN answer_digest BYTEA",
            "ALTER TABLE interactions ADD COLUMN lost BOOLEAN NOT NULL DEFAULT FALSE",
            "ALTER TABLE interactions ADD COLUMN asked_again_as TEXT",
        ),
    ),
    Migration(
        16,
        "profiles, credentials and credential_uses: the vault (core/vault/), sealed boxes and "
        "their metadata, and the audit trail of credential uses",
        (
            "CREATE TABLE profiles ("
            "tenant TEXT NOT NULL, name TEXT NOT NULL, version BIGINT NOT NULL DEFAULT 0, "
            "origins TEXT NOT NULL DEFAULT '[]', cookie_count INTEGER NOT NULL DEFAULT 0, "
            "size BIGINT NOT NULL DEFAULT 0, check_url TEXT NOT NULL DEFAULT '', "
            "check_text TEXT NOT NULL DEFAULT '', create_us BIGINT NOT NULL, "
            "update_us BIGINT NOT NULL, used_us BIGINT NOT NULL DEFAULT 0, "
            "writer TEXT NOT NULL DEFAULT '', writer_until_us BIGINT NOT NULL DEFAULT 0, "
            "key_id TEXT, wrapped_key BYTEA, body BYTEA, saved_by TEXT, "
            "PRIMARY KEY (tenant, name))",
            "CREATE INDEX profiles_by_update ON profiles (update_us)",
            "CREATE TABLE credentials ("
            "tenant TEXT NOT NULL, name TEXT NOT NULL, origins TEXT NOT NULL, "
            "parts TEXT NOT NULL, create_us BIGINT NOT NULL, update_us BIGINT NOT NULL, "
            "used_us BIGINT NOT NULL DEFAULT 0, key_id TEXT NOT NULL, "
            "wrapped_key BYTEA NOT NULL, body BYTEA NOT NULL, PRIMARY KEY (tenant, name))",
            "CREATE TABLE credential_uses ("
            "id BIGSERIAL PRIMARY KEY, tenant TEXT NOT NULL, credential TEXT NOT NULL, "
            "run_id TEXT NOT NULL, origin TEXT NOT NULL, part TEXT NOT NULL, "
            "field_kind TEXT NOT NULL, filled BOOLEAN NOT NULL, reason TEXT NOT NULL, "
            "use_us BIGINT NOT NULL)",
            "CREATE INDEX credential_uses_by_time "
            "ON credential_uses (tenant, use_us DESC, id DESC)",
        ),
    ),
)


def migrate(conn: psycopg.Connection[tuple[object, ...]], now_us: int) -> list[int]:
    """Applies the missing migrations in one transaction; returns their versions."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute(_BOOKKEEPING)
        applied = {
            int(str(row[0])) for row in conn.execute("SELECT version FROM schema_migrations")
        }
        todo = pending(MIGRATIONS, applied)
        for migration in todo:
            for statement in migration.statements:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_us) VALUES (%s, %s, %s)",
                (migration.version, migration.name, now_us),
            )
    return [m.version for m in todo]
