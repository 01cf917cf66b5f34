"""What every browser run of a server shares: the settings, the browser launcher and the network
guard. Apart from the run, so the parts a run is built of can take it without importing the run."""

from __future__ import annotations

from dataclasses import dataclass

from outrider.server.browser.launcher import BrowserLauncher
from outrider.server.net.guard import NetworkGuard
from outrider.server.settings import Settings
from outrider.server.settings.browser import BrowserSettings


@dataclass(frozen=True)
class BrowserEnv:
    settings: Settings
    browser: BrowserSettings
    launcher: BrowserLauncher
    guard: NetworkGuard
