"""The official TypeScript SDK's MCP client (npm @modelcontextprotocol/sdk, pinned in
tests/mcp/node) against the real server, over streamable HTTP and over stdio (`outrider mcp`):
it answers the run's form and approval, or declines them. Production browser agent, Chromium,
the fixture shop, a scripted model."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from typing import Any

import pytest

from tests.mcp.support import OUTRIDER, McpCase
from tests.support.harness import REPO_ROOT

pytestmark = pytest.mark.asyncio(loop_scope="module")

PACKAGE = REPO_ROOT / "tests" / "mcp" / "node"
SUBSCRIBER = {"Name": "Grace Hopper", "Email": "grace@example.com", "Topic": "Teapots"}
ANSWERS = {
    "answer": "Subscribed.",
    "decline": "Not subscribed: no details were given.",
}


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("Node.js is not installed (scripts/bootstrap.sh system --test installs it)")
    if not (PACKAGE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail("tests/mcp/node has no node_modules: run scripts/bootstrap.sh all --test")
    return found


async def run_client(case: McpCase, transport: str, behaviour: str) -> dict[str, Any]:
    environment = os.environ | {
        "MCP_URL": case.url,
        "MCP_TARGET": case.target,
        "MCP_KEY": case.keys.keys["beta-2"],
        "OUTRIDER": OUTRIDER,
        "TASK": f"Scenario newsletter ({transport}, {behaviour})",
        "START_URL": f"{case.sites}/shop/newsletter.html",
        "MODEL": case.model("newsletter"),
        "VALUES": json.dumps(SUBSCRIBER),
    }
    process = await asyncio.create_subprocess_exec(
        node(), "client.mjs", transport, behaviour,
        cwd=PACKAGE, env=environment,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), timeout=110)
    assert process.returncode == 0, err.decode()[-2000:]
    return dict(json.loads(out.decode().strip().splitlines()[-1]))


@pytest.mark.parametrize("transport", ["http", "stdio"])
@pytest.mark.parametrize("behaviour", ["answer", "decline"])
async def test_typescript_sdk_client(mcp_case: McpCase, transport: str, behaviour: str) -> None:
    report = await run_client(mcp_case, transport, behaviour)

    assert report["names"] == [
        "automate", "research", "get_run", "list_runs", "cancel_run", "read_artifact"
    ]  # fmt: skip
    content = report["result"]["structuredContent"]
    assert (content["state"], content["final_answer"]) == ("succeeded", ANSWERS[behaviour])
    kinds = ["approval" if "decision" in a["requestedSchema"]["properties"] else "form"
             for a in report["asked"]]  # fmt: skip
    assert kinds == (["form", "approval"] if behaviour == "answer" else ["form"])
    assert "Waiting for form data: Name, Email, Topic" in report["progress"]
