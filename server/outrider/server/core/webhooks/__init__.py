"""Webhooks: tenant-owned endpoints that Outrider notifies of what happens to runs, from a
durable outbox (`outbox`) written in the transaction of each state change, delivered by workers
on every replica (`dispatcher`) with Standard Webhooks signatures (`signing`), the spec's retry
schedule (`schedule`) and the egress guard the process is given (`egress`)."""
