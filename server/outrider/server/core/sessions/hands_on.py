"""A person uses a browser session's browser between runs (to log in, to fix something): a
by-hand run in the session (RunOptions.by_hand). The session is busy while they have it (a start
in it is refused SESSION_BUSY), its screen is watched and driven as any run's, and what they say
they did, with the page they left, is in the session's memory for its next run."""

from __future__ import annotations

from outrider.server.core.runs.starting import RunSpec
from outrider.v1 import params_pb2, profile_pb2, run_pb2

HANDS_ON_TASK = "Use the session's browser, then hand it back with a note of what you did."


def hands_on_spec(session: str, save_profile: bool = False) -> RunSpec:
    """The by-hand run that lends `session`'s browser to a person; it opens no page of its own.
    `save_profile`: what they did (logging in again) is saved, once they hand it back, to the
    profile the session started from."""
    params = params_pb2.AutomateParams(task=HANDS_ON_TASK, interactive=True)
    options = params_pb2.RunOptions(session=session, by_hand=True)
    if save_profile:
        options.profile_save = profile_pb2.PROFILE_SAVE_ON_SUCCESS
    return RunSpec(run_pb2.RUN_KIND_AUTOMATE, params, options)
