"""A reason code never reaches a console page alone: these words say what it means, and a code
they do not know is said as "Failed" with its message (the code itself stays beside them, for
whoever searches the logs)."""

from __future__ import annotations

_WORDS = {
    # how runs end (Run.outcome.error_code, an automate failure's code)
    "MAX_ITERATIONS": "It reached its step limit before finishing",
    "MAX_ERRORS": "Too many of its actions failed",
    "TASK_ABORTED": "The agent gave up",
    "TASK_FAILED": "It could not do the task",
    "CANCELLED": "Cancelled",
    "SERVER_RESTARTED": "The server restarted while it ran",
    "AGENT_CRASHED": "The agent failed unexpectedly",
    "RESUME_UNSAFE": "It was not started again after its server was lost",
    "START_NOT_CONFIRMED": "The store did not confirm its start",
    "RECORD_UNREADABLE": "Its stored record could not be read",
    "PLANNING_FAILED": "Planning the research failed",
    "SEARCH_FAILED": "Searching failed",
    "EVALUATION_FAILED": "Judging what it found failed",
    "OUTLINE_FAILED": "Outlining the report failed",
    "WRITING_FAILED": "Writing the report failed",
    "JUDGING_FAILED": "Checking the report failed",
    # refusals a page may show
    "NO_BROWSER": "Its browser is not open",
    "RUN_ENDED": "The run has ended",
    "RUN_ACTIVE": "The run is still active",
    "TAKEOVER_IN_PROGRESS": "Someone else has control",
    "NOT_IN_CONTROL": "You do not have control",
    "TAKEOVER_EXPIRED": "Your control expired",
    "AGENT_BUSY": "The agent did not pause in time",
    "MISSING_SCOPE": "Your sign-in may not do this",
    "CSRF_REFUSED": "The change did not come from a console page",
    "CLUSTER_BUSY": "The servers are full",
    "TENANT_BUSY": "Your tenant has as many runs as it may",
    "PRINCIPAL_RUN_LIMIT": "You have as many runs as you may",
    "PRINCIPAL_START_RATE": "You started runs too fast",
    "NO_AGENT_CAN_RUN": "No agent can run here (no model is configured)",
    "SHUTTING_DOWN": "The server is shutting down",
    "STORE_UNREACHABLE": "The store cannot be reached",
}


def words(code: str, message: str = "") -> str:
    """What `code` means, in words: its known words, else the message, else "Failed"."""
    return _WORDS.get(code) or message or ("Failed" if code else "")
