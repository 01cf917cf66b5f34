"""Replicas sharing a PostgreSQL store: each one's presence, calls relayed to the replica executing
a run, and the sweep that finds the runs a lost replica left."""
