"""How Outrider starts Debian's Chromium: the flags it needs here (no sandbox as root, no GPU), no
background traffic to hosts this network cannot reach, and WebRTC only through the proxy: without
that, a page's STUN/TURN servers get UDP straight from Chromium, past the guarded proxy.

Headless Chromium (156 here) gives every window, so every run's browser context, a location bar
with two prewarmed WebUI omnibox popups in a renderer process of their own: a second renderer
per run that nobody sees, about 0.4 s of CPU in its first minute and some CPU all along. They
are turned off (Chromium merges this --disable-features list with the one Playwright passes).

`browser_problem` is the start-up check behind the server's readiness (core/runs/readiness.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

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

CHECK_TIMEOUT = 20.0  # seconds each start check may take


async def browser_problem(chromium_path: Path) -> str:
    """'' when the local browser can start; else why not, and what to do. It runs the two
    programs a launch needs, as they failed in practice: Debian's Chromium (`--version` loads the
    binary and its libraries) and Playwright's Node.js driver (it links libatomic1, which a
    minimal Debian lacks). A whole launch would cost a second of CPU at every start."""
    from playwright._impl._driver import compute_driver_executable  # where Playwright keeps it

    node, _ = compute_driver_executable()
    checks = (
        ("Chromium", chromium_path, "install Debian's chromium or set OUTRIDER_CHROMIUM_PATH"),
        ("Playwright's browser driver", Path(node), "install libatomic1 (Debian)"),
    )
    for what, program, remedy in checks:
        problem = await _start_problem(program)
        if problem:
            return f"{what} ({program}) does not start: {problem}; {remedy}"
    return ""


async def _start_problem(program: Path) -> str:
    """'' when `program --version` exits 0 in time; else what went wrong, in a few words."""
    try:
        process = await asyncio.create_subprocess_exec(
            str(program),
            "--version",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as error:
        return error.strerror or str(error)
    try:
        _, stderr = await asyncio.wait_for(process.communicate(), CHECK_TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        return f"no answer to --version within {CHECK_TIMEOUT:g} s"
    if process.returncode == 0:
        return ""
    last = [line for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    detail = last[-1][:200] if last else "no message"
    return f"exit status {process.returncode} ({detail})"
