"""A test-only agent for the A2A TCK (a2aproject/a2a-tck), which drives the agent under test by
the prefix of its messages' ids: behind our A2A edge and the core's run lifecycle, it plays the
scenarios of the TCK's Gherkin files (scenarios/*.feature) as an Outrider research run would
(its events, a question, its report, its failure). Never registered in production.

    python -m tests.a2a.tck_agent --port 9999      serves it (no keys) until interrupted
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from pathlib import Path
from tempfile import TemporaryDirectory

from outrider.server.a2a_edge.parts import MESSAGE_LABEL
from outrider.server.core.clock import epoch_ms, now_us
from outrider.server.core.runs.agent import Params, RunContext
from outrider.server.grpc_edge.server import OutriderServer
from outrider.server.rest_port import rest_server
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import params_pb2, run_pb2
from outrider.v1 import research_events_pb2 as re
from tests.support.harness import settings_for_tests

LONG_WORK = 4.0  # seconds: the resubscription scenario's "2x streaming timeout"


class TckAgent:
    def preflight(self, params: Params, options: params_pb2.RunOptions) -> None:
        pass

    async def readiness(self) -> str:
        return ""  # it needs no model and no browser

    async def aclose(self) -> None:
        pass

    async def run(self, ctx: RunContext) -> run_pb2.RunOutcome:
        prefix = ctx.labels.get(MESSAGE_LABEL, "")
        if prefix.startswith("tck-reject-task"):
            return run_pb2.RunOutcome(
                success=False, error_code="REJECTED", error_message="rejected"
            )
        _said(ctx, "Working")
        if prefix.startswith("tck-input-required"):
            await ctx.ask_input(_one_field_form())
        if prefix.startswith("test-resubscribe-message-id"):
            await asyncio.sleep(LONG_WORK)
        answer = next((text for start, text in _REPORTS if prefix.startswith(start)), "TCK output")
        ctx.emit(re.ResearchEvent(complete=re.ResearchComplete(report=answer, message=answer)))
        return run_pb2.RunOutcome(success=True, result=answer)


# What the scenarios' text artifacts say; our research runs give theirs as the report.
_REPORTS = (
    ("tck-complete-task", "Hello from TCK"),
    ("tck-artifact-text", "Generated text content"),
    ("tck-stream-001", "Stream hello from TCK"),
    ("tck-stream-003", "Stream task lifecycle"),
    ("tck-stream-ordering-001", "Ordered output"),
    ("tck-stream-artifact-text", "Streamed text content"),
)


def _said(ctx: RunContext, message: str) -> None:
    ctx.emit(
        re.ResearchEvent(start=re.ResearchStart(message=message, timestamp=epoch_ms(now_us())))
    )


def _one_field_form() -> ae.InteractiveFormDataRequest:
    field = ae.FormField(ref="E1", label="Anything", field_type=ae.FORM_FIELD_TYPE_TEXT)
    return ae.InteractiveFormDataRequest(fields=[field], form_description="TCK input")


async def serve(port: int, data_dir: Path) -> None:
    agent = TckAgent()
    settings = settings_for_tests(data_dir, rest_port=port, rest_host="127.0.0.1")
    server = OutriderServer(settings, {run_pb2.RUN_KIND_RESEARCH: agent})
    await server.start()
    rest = rest_server(settings, server.runs, server.keyring, server.sessions)
    await rest.start()
    print(f"A2A agent for the TCK: http://127.0.0.1:{rest.port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await rest.stop()
    await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=9999)
    port = parser.parse_args().port
    with (
        TemporaryDirectory(prefix="outrider-tck-") as folder,
        contextlib.suppress(KeyboardInterrupt),
    ):
        asyncio.run(serve(port, Path(folder)))


if __name__ == "__main__":
    main()
