"""`outrider migrate`: brings the configured store's schema up to this version and exits.

Run it once before rolling out a new version to replicas that share a PostgreSQL database; a
server also migrates at start, so with one machine it is optional. Migrations only add, so
replicas still on the previous version keep working meanwhile.
"""

from __future__ import annotations

from outrider.server.core.storage import migrate
from outrider.server.settings import Settings


def main() -> int:
    where, applied = migrate(Settings())
    if applied:
        print(f"outrider: {where}: applied migrations {', '.join(map(str, applied))}", flush=True)
    else:
        print(f"outrider: {where}: the schema is up to date", flush=True)
    return 0
