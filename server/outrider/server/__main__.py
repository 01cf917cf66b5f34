"""`python -m outrider.server`: serve until SIGTERM or SIGINT, then shut down gracefully."""

from __future__ import annotations

import asyncio
import logging
import signal

from outrider.server.agents import production_agents
from outrider.server.core.agent import AgentRegistry
from outrider.server.models.registry import HOW_TO_CONFIGURE
from outrider.server.ports import PortInUse
from outrider.server.service import Outrider
from outrider.server.settings import Settings
from outrider.server.telemetry import tracing
from outrider.server.telemetry.logs import configure_logging

NO_MODEL = (
    f"outrider: {HOW_TO_CONFIGURE}. Until then runs are refused (health, listing and the "
    "rest work).\noutrider: to try everything without a model API key, run `outrider demo` "
    "(or `outrider demo --serve` for a server with a bundled site, corpus and scripted model)."
)


async def serve(settings: Settings, agents: AgentRegistry) -> None:
    server = Outrider(settings, agents)
    try:
        await server.start()
    except PortInUse as error:
        raise SystemExit(f"outrider: {error}") from None  # one line, exit status 1
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
    if server.metrics is not None:
        print(
            f"outrider: metrics on http://{settings.metrics_host}:{server.metrics.port}/metrics",
            flush=True,
        )
    if not (settings.model or settings.role_models):
        print(NO_MODEL, flush=True)
    await stop.wait()
    logging.getLogger(__name__).info("signal received; shutting down")
    await server.stop()


def main() -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    tracer_provider = tracing.install()
    try:
        asyncio.run(serve(settings, production_agents(settings)))
    finally:
        if tracer_provider is not None:
            tracer_provider.shutdown()  # exports the spans still buffered


if __name__ == "__main__":
    main()
