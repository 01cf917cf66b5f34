"""A profile's check before the task (ProfileCheck: a page and a text only a signed-in user sees).
Signed out, the run says so (profile_needs_login). With a credential for the check's origin it
goes on, and its agent logs in with it; else, when a person can answer, it asks one to log in
through a takeover and checks again; otherwise it ends at once with PROFILE_NEEDS_LOGIN, before
any model call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from outrider.server.browser.connection import Connection
from outrider.server.browser.endings import Endings
from outrider.server.browser.human_control import HumanControl
from outrider.server.browser.run_profile import RunProfile
from outrider.server.core.runs.agent import RunContext
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import profile_pb2, run_pb2

NEEDS_LOGIN = "PROFILE_NEEDS_LOGIN"
_CHECK = "profile-check"  # the iteration id of what the check emits


class CheckedRun(Protocol):
    """What the check uses of its run (browser/run.py)."""

    @property
    def ctx(self) -> RunContext: ...
    @property
    def connection(self) -> Connection: ...
    @property
    def human(self) -> HumanControl: ...
    @property
    def endings(self) -> Endings: ...


async def signed_out(page: Page, check: profile_pb2.ProfileCheck, timeout_s: float) -> str:
    """Why the check's page does not show the signed-in text ("" when it does)."""
    try:
        await page.goto(check.url)
        await page.get_by_text(check.text).first.wait_for(state="visible", timeout=timeout_s * 1000)
    except PlaywrightError as error:
        if "Timeout" in type(error).__name__:
            return f"{page.url} does not show {check.text!r}"
        return f"the check's page did not load: {(error.message or '').splitlines()[0]}"
    return ""


async def ensure_signed_in(
    run: CheckedRun, profile: RunProfile, timeout_s: float, offered: Callable[[str], str]
) -> run_pb2.RunOutcome | None:
    """None when the profile is signed in (or names no check), else the run's failure.
    `offered`: the run's credentials that fit a URL's origin ("" when none)."""
    check = profile.check
    if check is None:
        return None
    page = run.connection.session.page
    why = await signed_out(page, check, timeout_s)
    if not why:
        return None
    credentials = bool(offered(check.url))
    asking = run.human.can_ask and not credentials
    run.ctx.profile_signed_out(
        profile_pb2.ProfileNeedsLogin(
            profile=profile.opened.name,
            check_url=check.url,
            reason=why,
            asking=asking,
            credentials=credentials,
        )
    )
    if credentials:
        return None  # the page view offers them: the agent logs in
    if asking:
        await run.human.ask_person(
            f"{profile.opened.name} is signed out ({why}): please log in, then hand back",
            _CHECK,
        )
        why = await signed_out(run.connection.session.page, check, timeout_s)
        if not why:
            return None
    return run.endings.failure(
        ae.AUTOMATE_ERROR_CODE_TASK_FAILED,
        f"{profile.opened.name} is not signed in: {why}",
        iteration_id=_CHECK,
        reason=NEEDS_LOGIN,
    )
