"""How Outrider starts Debian's Chromium: the flags it needs here (no sandbox as root, no GPU) and
no background traffic to hosts this network cannot reach."""

from __future__ import annotations

CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
