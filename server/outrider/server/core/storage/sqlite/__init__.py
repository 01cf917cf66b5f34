"""The SQLite store: one process, the embedded default."""
