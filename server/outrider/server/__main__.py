"""`python -m outrider.server`: serve until SIGTERM or SIGINT, then shut down gracefully."""

from __future__ import annotations

import asyncio
import logging
import signal

from outrider.server.agents import production_agents
from outrider.server.core.agent import AgentRegistry
from outrider.server.service import Outrider
from outrider.server.settings import Settings


async def serve(settings: Settings, agents: AgentRegistry) -> None:
    server = Outrider(settings, agents)
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    loop.add_signal_handler(signal.SIGHUP, server.reload)
    print(f"outrider: serving on {settings.host}:{server.grpc.port}", flush=True)
    if server.rest is not None:
        scheme = "https" if settings.tls_cert else "http"
        print(
            f"outrider: REST/SSE on {scheme}://{settings.rest_host}:{server.rest.port}/v1",
            flush=True,
        )
    await stop.wait()
    logging.getLogger(__name__).info("signal received; shutting down")
    await server.stop()


def main() -> None:
    settings = Settings()
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    asyncio.run(serve(settings, production_agents(settings)))


if __name__ == "__main__":
    main()
