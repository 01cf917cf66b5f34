"""A run's hold on a browser: connecting (with CDP failover), its session, navigation reports,
and recovery when the browser dies mid-run (reconnect, restart from the starting URL, say so).

A run in a session borrows the session's kept browser instead (`borrow`): it starts where the
last run left it and is given back, not closed, at the end. A kept browser that dies is not
replaced: the run fails and the session ends as lost."""

from __future__ import annotations

import mimetypes
from collections.abc import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import ProxySettings

from outrider.server.browser.actions import ActionResult
from outrider.server.browser.env import BrowserEnv
from outrider.server.browser.kept import KeptBrowser
from outrider.server.browser.launcher import Connected
from outrider.server.browser.reporting import Reporter
from outrider.server.browser.session import BrowserSession
from outrider.server.browser.side_effects import BrowserJournal
from outrider.server.core.vault.profile_state import StorageState
from outrider.server.net.domains import DomainPolicy
from outrider.server.net.proxy import GuardedProxy
from outrider.v1 import automate_events_pb2 as ae

_CLOSED_MARKERS = ("has been closed", "Target closed", "Browser closed", "crashed")


class BrowserLost(Exception):
    """The browser died more often than a run may reconnect."""


class Connection:
    def __init__(
        self,
        env: BrowserEnv,
        reporter: Reporter,
        save_artifact: Callable[[bytes, str], str],
        domains: DomainPolicy,
        journal: BrowserJournal,
    ) -> None:
        self._env = env
        self._domains = domains
        self._journal = journal
        self._reporter = reporter
        self._save_artifact = save_artifact
        self._connected: Connected | None = None
        self._session: BrowserSession | None = None
        self._last_url = ""
        self._start_url = ""
        self._reconnects = 0
        self._proxy: GuardedProxy | None = None
        self._proxy_token = ""
        self.storage_state: StorageState | None = None  # a profile's, for every new context
        self._kept: KeptBrowser | None = None  # the session's browser this run borrowed
        self.on_reconnect: Callable[[], None] = lambda: None
        # told of each session as it opens, and with None before it closes
        self.on_session: Callable[[BrowserSession | None], Awaitable[None]] = _nothing

    @property
    def session(self) -> BrowserSession:
        if self._session is None:
            raise BrowserLost("the run has no browser")
        return self._session

    @property
    def alive(self) -> bool:
        return (
            self._connected is not None
            and self._connected.browser.is_connected()
            and self._session is not None
            and self._session.current is not None
        )

    async def open(self, start_at: int) -> None:
        def cycle(attempt: int, error: str, total: int) -> None:
            self._reporter.emit(
                "cdp_endpoint_cycle",
                ae.CdpEndpointCycle(
                    attempt=attempt, error=error, iteration_id="connect", total=total
                ),
            )

        self._connected = await self._env.launcher.connect(cycle, start_at)
        self._reporter.emit(
            "cdp_endpoint_connected",
            ae.CdpEndpointConnected(
                endpoint_index=self._connected.endpoint_index,
                iteration_id="connect",
                total=self._connected.total,
            ),
        )
        self._session = await BrowserSession.open(
            self._connected.browser,
            self._env.guard,
            self._domains,
            self._save_download,
            self._env.browser.navigation_timeout,
            self._proxy_settings(self._connected),
            self._journal,
            self.storage_state,
        )
        self._session.on_block = self._report_block
        await self.on_session(self._session)

    async def borrow(self, kept: KeptBrowser) -> None:
        """The session's browser, as it is, for this run."""
        if kept.lost:
            raise BrowserLost(f"the session's browser is gone: {kept.lost}")
        self._kept, self._connected = kept, kept.connected
        self._reporter.emit(
            "cdp_endpoint_connected",
            ae.CdpEndpointConnected(
                endpoint_index=kept.connected.endpoint_index,
                iteration_id="connect",
                total=kept.connected.total,
            ),
        )
        self._session = kept.lend(
            self._domains, self._save_download, self._journal, self._report_block
        )
        await self.on_session(self._session)

    def _proxy_settings(self, connected: Connected) -> ProxySettings | None:
        proxy = connected.proxy
        if proxy is None:
            return None
        username, self._proxy_token = proxy.register(self._domains, self._proxy_blocked)
        self._proxy = proxy
        # "<-loopback>" sends loopback too through the proxy, which Chromium otherwise bypasses.
        return {
            "server": f"http://127.0.0.1:{proxy.port}",
            "username": username,
            "password": self._proxy_token,
            "bypass": "<-loopback>",
        }

    def _proxy_blocked(self, url: str, why: str) -> None:
        if self._session is not None:
            self._session.blocked(url, why)

    def _report_block(self, url: str, why: str) -> None:
        self._reporter.status("network", f"network guard blocked {url}: {why}")

    def _save_download(self, data: bytes, filename: str) -> str:
        return self._save_artifact(
            data, mimetypes.guess_type(filename)[0] or "application/octet-stream"
        )

    async def open_start_url(self, url: str, iteration_id: str) -> None:
        self._start_url = url
        if url:
            try:
                await self.session.page.goto(url)
            except PlaywrightError as error:
                blocked = self.session.notices.blocked
                why = blocked[-1][1] if blocked else (error.message or "").splitlines()[0]
                self.session.notices.lines.append(f"Opening the starting URL failed: {why}")
        await self.report_navigation(iteration_id, force=True)

    async def report_navigation(self, iteration_id: str, force: bool = False) -> None:
        if not self.alive:
            return
        page = self.session.page
        if force or page.url != self._last_url:
            self._last_url = page.url
            self._reporter.emit(
                "browser_navigated",
                ae.BrowserNavigated(
                    iteration_id=iteration_id, url=page.url, title=await page.title()
                ),
            )

    async def guarded(
        self, action: Callable[[], Awaitable[ActionResult]], iteration_id: str
    ) -> ActionResult:
        """Runs an action; if the browser died under it, reconnects and says so."""
        try:
            result = await action()
        except PlaywrightError as error:
            result = ActionResult(False, (error.message or str(error)).splitlines()[0])
        if self.alive and not any(m in result.message for m in _CLOSED_MARKERS):
            return result
        await self.reconnect(iteration_id)
        return ActionResult(
            False,
            "The browser crashed and was restarted at the starting URL; look at the page again.",
        )

    async def ensure_alive(self, iteration_id: str) -> None:
        if not self.alive:
            await self.reconnect(iteration_id)

    async def reconnect(self, iteration_id: str) -> None:
        if self._kept is not None:
            self._kept.mark_lost("the browser died during a run")
            raise BrowserLost("the session's browser died; the session is lost with it")
        if self._reconnects >= self._env.browser.max_reconnects:
            raise BrowserLost(f"the browser was lost {self._reconnects + 1} times; giving up")
        self._reconnects += 1
        previous = self._connected.endpoint_index if self._connected else 0
        await self.close()
        await self.open(start_at=previous % self._env.launcher.endpoint_count)
        assert self._connected is not None
        self._reporter.emit(
            "browser_reconnected",
            ae.BrowserReconnected(
                endpoint_index=self._connected.endpoint_index,
                iteration_id=iteration_id,
                starting_url=self._start_url,
                total=self._connected.total,
            ),
        )
        await self.open_start_url(self._start_url, iteration_id)
        self.on_reconnect()

    async def close(self) -> None:
        """Closes the run's context (and its own CDP connection), or gives the session's browser
        back; never raises."""
        session, connected, kept = self._session, self._connected, self._kept
        self._session = self._connected = self._kept = None
        if kept is not None:
            if session is not None:
                await self.on_session(None)
            try:
                await kept.give_back()
            except PlaywrightError as error:
                kept.mark_lost(str(error).splitlines()[0])
            return
        if self._proxy is not None:
            self._proxy.release(self._proxy_token)
            self._proxy = None
        if session is not None:
            await self.on_session(None)
            try:
                await session.close()
            except PlaywrightError:
                pass
        if connected is not None and connected.owned:
            try:
                await connected.browser.close()
            except PlaywrightError:
                pass


async def _nothing(session: BrowserSession | None) -> None:
    return None
