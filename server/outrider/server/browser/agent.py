"""The browser agent the core runs for Automate: one shared launcher, one BrowserRun per run, and
a kept browser per session (browser/kept.py)."""

from __future__ import annotations

from outrider.server.browser.env import BrowserEnv
from outrider.server.browser.kept import KeptBrowser
from outrider.server.browser.launcher import BrowserLauncher
from outrider.server.browser.run import ROLES, BrowserRun
from outrider.server.chromium import browser_problem
from outrider.server.core.errors import OutriderError
from outrider.server.core.runs.agent import Params, RunContext
from outrider.server.core.runs.session_seats import Kept, OnLost
from outrider.server.core.vault.profile_state import StorageState
from outrider.server.models.registry import RunModels
from outrider.server.net.guard import NetworkGuard
from outrider.server.settings import Settings
from outrider.v1 import params_pb2, run_pb2


class BrowserAgent:
    def __init__(self, settings: Settings) -> None:
        guard = NetworkGuard(settings.network_allow)
        launcher = BrowserLauncher(str(settings.chromium_path), settings.browser, guard)
        self._env = BrowserEnv(settings, settings.browser, launcher, guard)

    def preflight(self, params: Params, options: params_pb2.RunOptions) -> None:
        if options.by_hand:  # no model is called
            return
        settings = self._env.settings
        RunModels(settings.model, settings.role_models, options.model, settings.providers).check(
            ROLES
        )

    async def readiness(self) -> str:
        """The default model of every role, then the local browser (remote CDP endpoints are
        connected per run, with failover between them)."""
        settings = self._env.settings
        try:
            RunModels(settings.model, settings.role_models, "", settings.providers).check(ROLES)
        except OutriderError as error:
            return error.message
        if settings.browser.cdp_endpoints:
            return ""
        return await browser_problem(settings.chromium_path)

    async def run(self, ctx: RunContext) -> run_pb2.RunOutcome:
        return await BrowserRun(ctx, self._env).execute()

    async def keep(
        self, start_url: str, on_lost: OnLost, storage_state: StorageState | None = None
    ) -> Kept:
        """A session's browser (see browser/kept.py), open on `start_url`, started from a
        profile's `storage_state` when given."""
        return await KeptBrowser.open(self._env, start_url, on_lost, storage_state)

    async def aclose(self) -> None:
        await self._env.launcher.close()
