"""`python -m outrider.server [--host ... --port ... --help]`: serve until SIGTERM or SIGINT, then
shut down gracefully. The options are in outrider.server.options."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from outrider.server.agents import production_agents
from outrider.server.core.runs.agent import AgentRegistry
from outrider.server.core.runs.readiness import Readiness
from outrider.server.core.vault.keyring import KeyRingError
from outrider.server.front_door import doors
from outrider.server.options import settings_from
from outrider.server.ports import PortInUse
from outrider.server.service import Outrider
from outrider.server.settings import Settings
from outrider.server.telemetry import tracing
from outrider.server.telemetry.logs import configure_logging

NOT_READY = (
    "outrider: not ready: grpc.health says NOT_SERVING for outrider.v1.RunService and /healthz "
    "answers 503 until this is fixed (health, listing and the rest work; a run that names a "
    "model of OUTRIDER_MODELS in options.model may still start)."
)
TRY_THE_DEMO = (
    "outrider: to try everything without a model API key, run `outrider demo` (or `outrider "
    "demo --serve` for a server with a bundled site, corpus and scripted model)."
)


async def serve(settings: Settings, agents: AgentRegistry) -> None:
    try:
        server = Outrider(settings, agents)
    except KeyRingError as error:  # the vault's master keys: a configuration error
        raise SystemExit(f"outrider: {error}") from None
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
        base = f"{scheme}://{settings.rest_host}:{server.rest.port}"
        print(f"outrider: REST/SSE on {base}/v1", flush=True)
        for door in doors(settings, base)[1:]:  # the API's line is the one above
            print(f"outrider: {door.name} on {door.url}", flush=True)
    if server.metrics is not None:
        print(
            f"outrider: metrics on http://{settings.metrics_host}:{server.metrics.port}/metrics",
            flush=True,
        )
    _say_what_cannot_run(server.grpc.runs.readiness, settings)
    await stop.wait()
    logging.getLogger(__name__).info("signal received; shutting down")
    await server.stop()


def _say_what_cannot_run(readiness: Readiness, settings: Settings) -> None:
    if readiness.problems:
        print(f"outrider: {readiness.summary()}", flush=True)
    if not readiness.ready:
        print(NOT_READY, flush=True)
    if not (settings.model or settings.role_models):
        print(TRY_THE_DEMO, flush=True)


def main(argv: Sequence[str] | None = None, prog: str = "") -> None:
    """Reads the options (sys.argv when None) over the OUTRIDER_* variables, then serves."""
    settings = settings_from(sys.argv[1:] if argv is None else argv, prog or _prog())
    configure_logging(settings.log_level, settings.log_format)
    tracer_provider = tracing.install()
    try:
        asyncio.run(serve(settings, production_agents(settings)))
    finally:
        if tracer_provider is not None:
            tracer_provider.shutdown()  # exports the spans still buffered


def _prog() -> str:
    """How the server was started, for usage lines: `python -m outrider.server` or the script."""
    name = Path(sys.argv[0]).name
    return "python -m outrider.server" if name == "__main__.py" else name


if __name__ == "__main__":
    main()
