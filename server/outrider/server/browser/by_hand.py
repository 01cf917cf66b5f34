"""A browser run with no agent (RunOptions.by_hand): the browser opens at the run's URL and a
person is asked to take it over; the run ends when they hand it back (succeeded) or decline, or
the request expires (failed). No model is called. With a profile it is how a person logs in once
and the state is saved (ProfileService.StartProfileLogin)."""

from __future__ import annotations

from outrider.server.browser.profile_check import CheckedRun, signed_out
from outrider.server.browser.run_profile import RunProfile
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import run_pb2

_BY_HAND = "by-hand"
_ASK = "Log in (or do what the task says), then hand the browser back"


async def by_hand(
    run: CheckedRun, profile: RunProfile | None, timeout_s: float
) -> run_pb2.RunOutcome:
    params = run.ctx.automate
    url = params.url or (profile.check.url if profile and profile.check else "")
    await run.connection.open_start_url(url, _BY_HAND)
    answer = await run.human.ask_person(params.task or _ASK, _BY_HAND)
    if answer.ending != bc.TAKEOVER_ENDING_HANDED_BACK:
        what = bc.TakeoverEnding.Name(answer.ending).removeprefix("TAKEOVER_ENDING_").lower()
        return run.endings.failure(
            ae.AUTOMATE_ERROR_CODE_TASK_ABORTED,
            f"nobody handed the browser back (the takeover ended: {what.replace('_', ' ')})",
            iteration_id=_BY_HAND,
        )
    check = profile.check if profile else None
    if check is not None:
        why = await signed_out(run.connection.session.page, check, timeout_s)
        if why:
            return run.endings.failure(
                ae.AUTOMATE_ERROR_CODE_TASK_FAILED,
                f"handed back, but not signed in: {why}",
                iteration_id=_BY_HAND,
                reason="PROFILE_NEEDS_LOGIN",
            )
    note = run.human.note_of(answer)  # what the person says they did: a session remembers it
    handed = (
        f"A person handed the browser back: {note}" if note else "A person handed the browser back."
    )
    return run.endings.success(handed, _BY_HAND)
