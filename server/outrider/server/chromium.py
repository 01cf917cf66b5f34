"""How Outrider starts Debian's Chromium: the flags it needs here (no sandbox as root, no GPU), no
background traffic to hosts this network cannot reach, and WebRTC only through the proxy: without
that, a page's STUN/TURN servers get UDP straight from Chromium, past the guarded proxy."""

from __future__ import annotations

CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)
