"""A run's secret data: masked in the run that is stored and served, kept in memory for its agent
only, and known to the run's redactor from the moment the run arrives."""

from __future__ import annotations

from outrider.server.core.secrets.redaction import Redactor, holds_placeholders, mask_secret_data
from outrider.v1 import run_pb2


def keep_secrets_in_memory(run: run_pb2.Run) -> tuple[run_pb2.Run, Redactor]:
    """Masks the secrets in `run`'s data (it is what gets stored and served); returns the copy
    the agent works from, secrets included, and the run's redactor, which knows them."""
    live = run_pb2.Run()
    live.CopyFrom(run)
    redactor = Redactor()
    if run.HasField("automate") and run.automate.HasField("data"):
        masked, found = mask_secret_data(run.automate.data)
        run.automate.data.CopyFrom(masked)
        for value in found.values():
            redactor.add(value)
    return live, redactor


def restart_reason(run: run_pb2.Run) -> str:
    """Why a run a previous process left active ends as failed."""
    reason = "the server stopped while the run was active"
    if run.HasField("automate") and holds_placeholders(run.automate.data):
        reason += "; its secret data were kept only in memory and are gone, so it cannot resume"
    return reason
