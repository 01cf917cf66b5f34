"""The A2A edge: Outrider's browser and research agents as one A2A agent (a2a-sdk, protocol 1.0
with 0.3 compatibility) on the REST port. A task is a run; run events become task status and
artifact updates; questions become `input-required`. See docs/a2a.md."""
