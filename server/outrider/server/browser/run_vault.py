"""What a browser run takes from the vault: its profile (loaded into its browser, checked, saved
back) and its credentials (offered to the model by site, filled by the harness). Opened when the
run starts, before its browser; closed on every exit path."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from playwright.async_api import Locator

from outrider.server.browser.actions import ActionResult, CredentialFill
from outrider.server.browser.by_hand import by_hand
from outrider.server.browser.credential_fill import CredentialFiller
from outrider.server.browser.elements import ElementInfo
from outrider.server.browser.profile_check import CheckedRun, ensure_signed_in
from outrider.server.browser.run_profile import RunProfile
from outrider.server.core.runs.agent import RunContext
from outrider.server.core.vault.checks import origin_of
from outrider.server.core.vault.names import parse_credential_name
from outrider.server.core.vault.profile_state import StorageState
from outrider.server.core.vault.run_credentials import RunCredentials
from outrider.v1 import run_pb2


class RunVault:
    def __init__(self, ctx: RunContext) -> None:
        self._ctx = ctx
        self.profile: RunProfile | None = None
        self.filler: CredentialFiller | None = None

    @property
    def has_credentials(self) -> bool:
        return bool(self._ctx.options.credentials)

    def open(self) -> None:
        """Loads the profile and opens the credentials; an OutriderError ends the run."""
        ctx = self._ctx
        self.profile = RunProfile.open(ctx)
        if self.has_credentials and ctx.vault is not None:
            names = [
                parse_credential_name(name, f"options.credentials[{n}]")
                for n, name in enumerate(ctx.options.credentials)
            ]
            loaded = RunCredentials.load(ctx.vault, ctx.tenant, ctx.run_id, names, ctx.redactor)
            self.filler = CredentialFiller(loaded, ctx.emit)

    @property
    def state(self) -> StorageState | None:
        """What the run's new browser context starts from."""
        return self.profile.state if self.profile is not None else None

    @property
    def trusted_hosts(self) -> list[str]:
        """The hosts of the credentials' origins: the caller trusts them with the login."""
        return self.filler.credentials.hosts if self.filler is not None else []

    def notes(self, url: str) -> list[str]:
        return self.filler.notes(url) if self.filler is not None else []

    def notes_for(self, url: str) -> str:
        """The run's credentials that fit `url`'s origin, as the model is told ("": none)."""
        return self.filler.credentials.offered(origin_of(url)) if self.filler is not None else ""

    def fill(self, iteration_id: str) -> CredentialFill | None:
        filler = self.filler
        if filler is None:
            return None

        async def fill(
            target: tuple[Locator, ElementInfo, float], credential: str, part: str
        ) -> ActionResult:
            return await filler.fill(target, credential, part, iteration_id)

        return fill

    async def drive(
        self,
        run: CheckedRun,
        task: Callable[[], Awaitable[run_pb2.RunOutcome]],
        timeout_s: float,
    ) -> run_pb2.RunOutcome:
        """The run once its browser is open: the profile's check (or a by-hand run instead of
        the agent's `task`), then the task, then the profile's save, reported before the run's
        complete and done (which `Endings.hold` kept back)."""
        if run.ctx.options.by_hand:
            outcome = await by_hand(run, self.profile, timeout_s)
        else:
            refused = None
            if self.profile is not None:
                refused = await ensure_signed_in(run, self.profile, timeout_s, self.notes_for)
            outcome = refused or await task()
        if self.profile is not None:
            connection = run.connection
            context = connection.session.context if connection.alive else None
            await self.profile.save(outcome, context)
        run.endings.release()
        return outcome

    @property
    def saves(self) -> bool:
        return self.profile is not None and self.profile.saves

    async def close(self) -> None:
        if self.profile is not None:
            await self.profile.close()
