"""One run's browser state: its own context, its tabs, and what happened in them that the model
should hear about (popups, dialogs, downloads, blocked requests). Closed on every exit path, unless
the context is a session's (browser/kept.py): then it is lent to the run, which the context's
request guard, download keeper and journal serve (`lend`) until the session lends it again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from playwright.async_api import (
    Browser,
    BrowserContext,
    Dialog,
    Download,
    Page,
    ProxySettings,
    Route,
    ViewportSize,
)

from outrider.server.browser.network import RequestGuard
from outrider.server.browser.side_effects import BrowserJournal
from outrider.server.core.errors import Unavailable
from outrider.server.core.vault.profile_state import StorageState
from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import NetworkGuard

VIEWPORT: ViewportSize = {"width": 1280, "height": 800}


@dataclass
class Notices:
    """Things that happened since the model last looked, told to it with the next page view."""

    lines: list[str] = field(default_factory=list)
    blocked: list[tuple[str, str]] = field(default_factory=list)  # (url, why)
    dialogs: int = 0  # JavaScript dialogs (alert, confirm, prompt) so far

    def take(self) -> list[str]:
        taken, self.lines = self.lines, []
        return taken


class BrowserSession:
    def __init__(
        self,
        context: BrowserContext,
        save_download: Callable[[bytes, str], str],
        journal: BrowserJournal,
    ) -> None:
        self.context = context
        self.notices = Notices()
        self._save_download = save_download
        self._journal = journal
        self._requests: RequestGuard | None = None  # the current borrower's checks
        self._downloads: set[asyncio.Task[object]] = set()  # being saved
        self._pages: list[Page] = []
        self._keys: dict[int, int] = {}
        self.current: Page | None = None
        self.on_block: Callable[[str, str], None] = lambda url, why: None
        self.on_current: Callable[[], None] = lambda: None  # another tab became current

    @classmethod
    async def open(
        cls,
        browser: Browser,
        guard: NetworkGuard,
        domains: DomainPolicy,
        save_download: Callable[[bytes, str], str],
        navigation_timeout: float,
        proxy: ProxySettings | None = None,
        journal: BrowserJournal | None = None,
        storage_state: StorageState | None = None,
    ) -> BrowserSession:
        """`storage_state`: a profile's saved state the new context starts from."""
        # Service workers blocked: requests they make would pass by the context's route, and so
        # by the network guard's URL checks and the side-effect journal.
        context = await browser.new_context(
            viewport=VIEWPORT,
            accept_downloads=True,
            proxy=proxy,
            service_workers="block",
            storage_state=storage_state,  # type: ignore[arg-type]
        )
        session = cls(context, save_download, journal or BrowserJournal(None))
        context.set_default_navigation_timeout(navigation_timeout * 1000)
        session.lend(guard, domains, save_download, session._journal, walk=proxy is None)
        await context.route("**/*", session._guard_request)
        context.on("page", session._adopt)
        session._adopt(await context.new_page())
        return session

    def lend(
        self,
        guard: NetworkGuard,
        domains: DomainPolicy,
        save_download: Callable[[bytes, str], str],
        journal: BrowserJournal,
        walk: bool,
    ) -> None:
        """From now on the context's requests pass this run's checks and journal, its downloads
        are this run's artifacts, and what happens is told to this run (fresh notices)."""
        self._save_download, self._journal, self.notices = save_download, journal, Notices()
        self._requests = RequestGuard(guard, domains, self.blocked, walk, self._journaled)

    async def _guard_request(self, route: Route) -> None:
        assert self._requests is not None  # lent before the route is set
        await self._requests.handle(route)

    def blocked(self, url: str, why: str) -> None:
        self.notices.blocked.append((url, why))
        self.notices.lines.append(f"The network guard blocked a request to {url}: {why}")
        self.on_block(url, why)

    async def _journaled(self, method: str, url: str, resource_type: str) -> str | None:
        """Lets a request go once the side-effect journal holds it (when it needs to)."""
        held = await self._journal.request(method, url, resource_type)
        if held is not None:
            self.notices.blocked.append((url, held))
            self.notices.lines.append(f"A {method} request to {url} was not sent. {held}")
        return held

    def _adopt(self, page: Page) -> None:
        """Tracks a new tab or popup and makes it current: popups are followed."""
        if id(page) in self._keys:
            return
        self._keys[id(page)] = len(self._keys) + 1
        self._pages.append(page)
        if self.current is not None:
            self.notices.lines.append(
                f"A new tab opened and is now current (tab {len(self._pages)})."
            )
        self.current = page
        self.on_current()
        page.on("dialog", self._on_dialog)
        page.on("download", self._on_download)
        page.on("close", self._on_close)

    async def _on_dialog(self, dialog: Dialog) -> None:
        self.notices.dialogs += 1
        self.notices.lines.append(
            f"A {dialog.type} dialog said {dialog.message!r}; it was accepted."
        )
        await dialog.accept()

    async def downloads_saved(self, seconds: float) -> None:
        """Waits (at most `seconds`) for the downloads being saved, so the action that
        started one reports it, not a later one."""
        if self._downloads:
            await asyncio.wait(set(self._downloads), timeout=seconds)

    async def _on_download(self, download: Download) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._downloads.add(task)
            task.add_done_callback(self._downloads.discard)
        path = await download.path()
        self._journal.download(download.suggested_filename, download.url)
        try:
            name = self._save_download(path.read_bytes(), download.suggested_filename)
        except Unavailable as error:
            self.notices.lines.append(
                f"Downloaded {download.suggested_filename!r}, but it could not be kept: {error}"
            )
            return
        self.notices.lines.append(
            f"Downloaded {download.suggested_filename!r}; saved as artifact {name}."
        )

    def _on_close(self, page: Page) -> None:
        if page in self._pages:
            self._pages.remove(page)
        if self.current is page:
            self.current = self._pages[-1] if self._pages else None
            self.on_current()

    @property
    def page(self) -> Page:
        if self.current is None:
            raise RuntimeError("the run has no open tab")
        return self.current

    def key_of(self, page: Page) -> int:
        return self._keys[id(page)]

    def page_by_key(self, key: int) -> Page | None:
        return next((p for p in self._pages if self._keys[id(p)] == key), None)

    @property
    def tabs(self) -> list[Page]:
        return list(self._pages)

    def switch_to(self, page: Page) -> None:
        self.current = page
        self.on_current()

    async def close(self) -> None:
        await self.context.close()
