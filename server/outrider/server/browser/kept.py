"""A session's browser (core/sessions/): one browser context kept open on this replica between
the session's runs, so a run in the session starts on the page, with the tabs and the cookies, the
last one left. Each run borrows it (`lend`: the run's domain policy, journal and downloads apply
from then on) and gives it back at its end; between runs its requests pass the network guard
with the server's policy alone, and a download has no run to keep it.

Called a "kept browser" to keep it apart from `session.py`'s BrowserSession (one run's hold on
a context, which this one owns for the session's life) and from the console's sign-in sessions.
If Chromium dies, the kept browser is lost and says so (`on_lost`): the session ends, and no run
is given a fresh browser as if it were the session's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import ProxySettings

from outrider.server.browser.env import BrowserEnv
from outrider.server.browser.launcher import Connected
from outrider.server.browser.session import BrowserSession
from outrider.server.browser.side_effects import BrowserJournal
from outrider.server.core.errors import FailedPrecondition, Unavailable
from outrider.server.core.runs.session_seats import OnLost
from outrider.server.core.vault.profile_state import StorageState
from outrider.server.net.domains import DomainPolicy

log = logging.getLogger(__name__)
_ANY_DOMAIN = DomainPolicy.of([], [])


class KeptBrowser:
    def __init__(self, env: BrowserEnv, connected: Connected, on_lost: OnLost) -> None:
        self._env = env
        self.connected = connected
        self._on_lost = on_lost
        self._session: BrowserSession | None = None
        self._proxy_token = ""
        self._where = ("", "")
        self.lost = ""  # why it is gone; "" while it lives
        self.lent = False

    @classmethod
    async def open(
        cls,
        env: BrowserEnv,
        start_url: str,
        on_lost: OnLost,
        storage_state: StorageState | None = None,
    ) -> KeptBrowser:
        """`storage_state`: a profile's saved state the context starts from (before the start
        page opens, so its cookies go with the first request)."""
        connected = await env.launcher.connect(lambda *_: None)
        kept = cls(env, connected, on_lost)
        try:
            kept._session = await BrowserSession.open(
                connected.browser,
                env.guard,
                _ANY_DOMAIN,
                _no_run,
                env.browser.navigation_timeout,
                kept._proxy(),
                storage_state=storage_state,
            )
            kept._session.on_block = lambda url, why: None
            if start_url:
                await kept._go(start_url)
        except BaseException:
            await kept.aclose()
            raise
        connected.browser.on("disconnected", lambda _: kept.mark_lost("Chromium stopped"))
        await kept.refresh()
        return kept

    async def _go(self, url: str) -> None:
        """Opens the start page; a page the guard refuses or that does not load is the caller's
        to know (FAILED_PRECONDITION), not an empty session."""
        session = self.session
        try:
            await session.page.goto(url)
        except PlaywrightError as error:
            blocked = session.notices.blocked
            why = blocked[-1][1] if blocked else (error.message or "").splitlines()[0]
            raise FailedPrecondition(
                f"the session's start page did not open: {why}", reason="START_URL_FAILED"
            ) from None

    def _proxy(self) -> ProxySettings | None:
        proxy = self.connected.proxy
        if proxy is None:
            return None
        username, self._proxy_token = proxy.register(_ANY_DOMAIN, lambda url, why: None)
        return {
            "server": f"http://127.0.0.1:{proxy.port}",
            "username": username,
            "password": self._proxy_token,
            "bypass": "<-loopback>",
        }

    @property
    def session(self) -> BrowserSession:
        if self._session is None or self.lost:
            raise Unavailable(f"the session's browser is gone: {self.lost or 'closed'}")
        return self._session

    def where(self) -> tuple[str, str]:
        return self._where

    async def refresh(self) -> None:
        """Notes the page it is on now (the session's record shows it between runs)."""
        if self._session is None or self._session.current is None:
            return
        page = self._session.page
        try:
            self._where = (page.url, await page.title())
        except PlaywrightError:
            self._where = (page.url, "")

    def lend(
        self,
        domains: DomainPolicy,
        save_download: Callable[[bytes, str], str],
        journal: BrowserJournal,
        on_block: Callable[[str, str], None],
    ) -> BrowserSession:
        """The context, for one run: its checks, journal and downloads from now on."""
        session = self.session
        session.lend(self._env.guard, domains, save_download, journal, self.connected.proxy is None)
        session.on_block = on_block
        if self.connected.proxy is not None:
            self.connected.proxy.rebind(self._proxy_token, domains, session.blocked)
        self.lent = True
        return session

    async def give_back(self) -> None:
        """The run ended: the server's own policy again until the next run borrows it."""
        self.lent = False
        if self._session is None or self.lost:
            return
        walk = self.connected.proxy is None
        self._session.lend(self._env.guard, _ANY_DOMAIN, _no_run, BrowserJournal(None), walk)
        self._session.on_block = lambda url, why: None
        self._session.on_current = lambda: None
        if self.connected.proxy is not None:
            self.connected.proxy.rebind(self._proxy_token, _ANY_DOMAIN, lambda url, why: None)
        if self._session.current is None:  # every tab was closed: the cookies stay, a tab opens
            await self._session.context.new_page()
        await self.refresh()

    def mark_lost(self, why: str) -> None:
        """The browser is gone under the session: said once, to the session."""
        if not self.lost:
            self.lost = why
            self._on_lost(why)

    async def aclose(self) -> None:
        """Closes the context (and its own CDP connection); never raises."""
        session, self._session = self._session, None
        self.lost = self.lost or "the session ended"
        if self.connected.proxy is not None and self._proxy_token:
            self.connected.proxy.release(self._proxy_token)
        try:
            if session is not None:
                await session.close()
            if self.connected.owned:
                await self.connected.browser.close()
        except PlaywrightError as error:
            log.debug("closing a kept browser: %s", error)


def _no_run(data: bytes, filename: str) -> str:
    raise Unavailable("no run holds the session's browser to keep the download")
