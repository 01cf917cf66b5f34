"""The PostgreSQL store: replicas sharing one database; write-behind, presence, and a server that
changes under it."""
