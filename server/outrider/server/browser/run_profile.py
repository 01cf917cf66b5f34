"""A browser run's profile (RunOptions.profile): opened before the browser (its saved state is
loaded into the run's new context), its writer lease kept while the run lives, and at the end
the context's state saved back when RunOptions.profile_save says so, the save reported in a
profile_saved event and in the outcome. A run in a session that started from a profile names
none: with profile_save it saves the session's browser state to that profile the same way (its
lease, its save, its report), loading nothing. Built on the two seams a session uses too:
`OpenedProfile` (core/vault) for the stored side and `state_of` for the browser's side."""

from __future__ import annotations

import asyncio
import contextlib

from playwright.async_api import BrowserContext
from playwright.async_api import Error as PlaywrightError

from outrider.server.core.runs.agent import RunContext
from outrider.server.core.runs.session_seats import SessionProfile
from outrider.server.core.vault.checks import SAVING, saves_to_session
from outrider.server.core.vault.names import parse_profile_name
from outrider.server.core.vault.opened_profile import OpenedProfile
from outrider.server.core.vault.profile_state import StorageState
from outrider.v1 import profile_pb2, run_pb2


async def state_of(context: BrowserContext) -> StorageState:
    """A context's state as a profile keeps it: cookies (session-only ones too), and per origin
    localStorage and IndexedDB."""
    return dict(await context.storage_state(indexed_db=True))


class RunProfile:
    def __init__(
        self, ctx: RunContext, opened: OpenedProfile, session: SessionProfile | None = None
    ) -> None:
        self._ctx = ctx
        self.opened = opened
        self.mode = ctx.options.profile_save
        self._session = session  # the session's profile, when the run saves to it
        self._lease = asyncio.create_task(opened.keep_lease(), name=f"lease {opened.name}")

    @classmethod
    def open(cls, ctx: RunContext) -> RunProfile | None:
        """The run's profile, loaded (and leased when the run will save), or the profile its
        session started from, leased, when the run saves to it; None without one. An
        OutriderError (deleted meanwhile, a master key missing) ends the run."""
        if ctx.vault is None:
            return None
        if ctx.options.profile:
            profile_id = parse_profile_name(ctx.options.profile, "options.profile")
            saves = ctx.options.profile_save in SAVING
            opened = OpenedProfile.open(ctx.vault, ctx.tenant, profile_id, ctx.run_id, saves)
            ctx.emit(opened.loaded())
            return cls(ctx, opened)
        session = ctx.session.profile if ctx.session is not None else None
        if session is None or not saves_to_session(ctx.options):
            return None
        opened = OpenedProfile.to_save(
            ctx.vault, ctx.tenant, session.profile_id, ctx.run_id, session.version
        )
        return cls(ctx, opened, session)

    @property
    def saves(self) -> bool:
        return self.mode in SAVING

    @property
    def state(self) -> StorageState | None:
        return self.opened.state

    @property
    def check(self) -> profile_pb2.ProfileCheck | None:
        """The profile's check; none in a session: it would move the session's page."""
        row = self.opened.row
        if not row.check_url or self._session is not None:
            return None
        return profile_pb2.ProfileCheck(url=row.check_url, text=row.check_text)

    async def save(self, outcome: run_pb2.RunOutcome, context: BrowserContext | None) -> None:
        """Saves the context's state when the mode says so for this outcome; reports it."""
        if self.mode == profile_pb2.PROFILE_SAVE_ON_SUCCESS and not outcome.success:
            return
        if not self.saves:
            return
        report = profile_pb2.ProfileSaved(profile=self.opened.name)
        try:
            if context is None:
                raise PlaywrightError("the run's browser is gone")
            report = self.opened.save(await state_of(context))
            if report.saved and self._session is not None:  # the session's state is this now
                self._session.version = report.version
        except PlaywrightError as error:
            report.refusal_reason = "BROWSER_GONE"
            report.message = f"the state could not be read: {(error.message or '').splitlines()[0]}"
        self._ctx.emit(report)
        outcome.profile_save.CopyFrom(report)

    async def close(self) -> None:
        self._lease.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._lease
        self.opened.close()
