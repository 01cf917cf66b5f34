"""Run by test_render_netns inside a private network namespace whose loopback also carries
10.9.9.9 and 169.254.169.254 and whose /etc/hosts names them: renders the probe page aimed at
them on port 80, once in an unguarded Chromium (the control) and once in the research renderer,
and prints as JSON what reached the listeners each time."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from outrider.server.fetch.render import Renderer
from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import NetworkGuard
from outrider.server.settings import Settings
from tests.research.probes import PROBES_DIR, listeners, outcomes, probe_url, render_unguarded
from tests.research.web import Server, fixture_web

ADDRESSES = ("10.9.9.9", "169.254.169.254", "127.0.0.1", "::1")
NAMES = {
    "private.probe.test": "10.9.9.9",
    "metadata.probe.test": "169.254.169.254",
    "loopback.probe.test": "127.0.0.1",
}
TARGETS = ("10.9.9.9", "169.254.169.254", "[::1]", *NAMES)  # all on port 80


def hosts_file() -> str:
    lines = ["127.0.0.1 localhost", "::1 localhost"]
    return "\n".join([*lines, *(f"{ip} {name}" for name, ip in NAMES.items())]) + "\n"


async def probe(web: Server, guarded: bool) -> dict[str, Any]:
    async with listeners(ADDRESSES, port=80) as refused:
        url = probe_url(web.url, TARGETS)
        if guarded:
            guard = NetworkGuard([f"127.0.0.1:{web.port}"])
            renderer = Renderer(Settings().chromium_path, guard, DomainPolicy(), "outrider-test")
            try:
                html = await renderer.render(url, 90)
            finally:
                await renderer.aclose()
        else:
            html = await render_unguarded(url)
    reached = refused.reached
    return {
        "total": reached.total,
        "paths": sorted(reached.paths()),
        "udp": dict(reached.udp),
        "outcomes": outcomes(html),
    }


async def main() -> None:
    with fixture_web(PROBES_DIR) as web:
        control = await probe(web, guarded=False)
        guarded = await probe(web, guarded=True)
    print(json.dumps({"unguarded": control, "guarded": guarded}))


if __name__ == "__main__":
    asyncio.run(main())
