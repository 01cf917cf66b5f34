"""A server with a ScriptAgent that can also ask for a password, for driving the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from outrider.server.core.runs.agent import RunContext
from outrider.server.grpc_edge.server import OutriderServer
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_pb2
from tests.support.harness import settings_for_tests
from tests.support.script_agent import ScriptAgent, instructions

CLI = [sys.executable, "-m", "outrider.cli.main"]


class PasswordAgent(ScriptAgent):
    """ScriptAgent, plus `ask_password`: one form request with an email and a password field."""

    async def run(self, ctx: RunContext) -> run_pb2.RunOutcome:
        if instructions(ctx).get("ask_password"):
            await self._ask_password(ctx)
        return await super().run(ctx)

    async def _ask_password(self, ctx: RunContext) -> None:
        fields = [
            ae.FormField(
                ref="E1", label="Email", required=True, field_type=ae.FORM_FIELD_TYPE_EMAIL
            ),
            ae.FormField(
                ref="E2", label="Password", required=True, field_type=ae.FORM_FIELD_TYPE_PASSWORD
            ),
        ]
        request = ae.InteractiveFormDataRequest(
            fields=fields, form_description="Sign in", page_url="http://127.0.0.1/login"
        )
        answer = await ctx.ask_input(request)
        if answer.submitted:
            self.received_inputs.append(answer.values)


@dataclass
class CliServer:
    server: OutriderServer
    agent: PasswordAgent

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def env(self) -> dict[str, str]:
        return os.environ | {"OUTRIDER_TARGET": self.target, "COLUMNS": "200", "NO_COLOR": "1"}

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """The command without a terminal (call it through asyncio.to_thread)."""
        return subprocess.run(
            [*CLI, *args], env=self.env(), capture_output=True, text=True, timeout=60, check=False
        )


@pytest.fixture
async def cli_server(tmp_path: Path) -> AsyncIterator[CliServer]:
    agent = PasswordAgent()
    agents = {run_pb2.RUN_KIND_AUTOMATE: agent, run_pb2.RUN_KIND_RESEARCH: agent}
    server = OutriderServer(settings_for_tests(tmp_path / "server"), agents)  # type: ignore[arg-type]
    await server.start()
    yield CliServer(server, agent)
    await server.stop()
