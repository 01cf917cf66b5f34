"""The real server with the test-only ScriptAgent as a process: python -m tests.support.test_server.

Used by tests that need a separate process (SIGTERM, SIGKILL and restart). Configured like the real
server through OUTRIDER_* variables; OUTRIDER_TEST_RESEARCH_AGENT=production serves research runs
with the production research agent instead.
"""

from __future__ import annotations

import asyncio
import logging
import os

from outrider.server.__main__ import serve
from outrider.server.core.runs.agent import AgentRegistry
from outrider.server.settings import Settings
from outrider.v1 import run_pb2
from tests.support.script_agent import ScriptAgent


def main() -> None:
    settings = Settings()
    logging.basicConfig(level=settings.log_level.upper())
    agent = ScriptAgent()
    agents: AgentRegistry = {run_pb2.RUN_KIND_AUTOMATE: agent, run_pb2.RUN_KIND_RESEARCH: agent}
    if os.environ.get("OUTRIDER_TEST_RESEARCH_AGENT") == "production":
        from outrider.server.research.agent import ResearchAgent

        agents = {**agents, run_pb2.RUN_KIND_RESEARCH: ResearchAgent(settings)}
    asyncio.run(serve(settings, agents))


if __name__ == "__main__":
    main()
