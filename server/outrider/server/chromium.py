"""How Outrider starts Debian's Chromium: the flags it needs here (no sandbox as root, no GPU), no
background traffic to hosts this network cannot reach, and WebRTC only through the proxy: without
that, a page's STUN/TURN servers get UDP straight from Chromium, past the guarded proxy.

Headless Chromium (156 here) gives every window, so every run's browser context, a location bar
with two prewarmed WebUI omnibox popups in a renderer process of their own: a second renderer
per run that nobody sees, about 0.4 s of CPU in its first minute and some CPU all along. They
are turned off (Chromium merges this --disable-features list with the one Playwright passes)."""

from __future__ import annotations

CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
)
