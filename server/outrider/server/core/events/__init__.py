"""Per-run event logs: gapless sequences, persisted first, then fanned out to watchers here and on
other replicas."""
