"""The real server with the production agents (the browser agent drives its own Chromium) as a
process: python -m tests.support.production_server, configured through OUTRIDER_* variables.
For tests that kill a replica executing browser runs."""

from __future__ import annotations

import asyncio
import logging

from outrider.server.__main__ import serve
from outrider.server.agents import production_agents
from outrider.server.settings import Settings


def main() -> None:
    settings = Settings()
    logging.basicConfig(level=settings.log_level.upper())
    asyncio.run(serve(settings, production_agents(settings)))


if __name__ == "__main__":
    main()
