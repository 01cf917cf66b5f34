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

from outrider.client import AsyncClient
from outrider.mcp.results import GOES_ON
from outrider.v1 import run_pb2
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
    return await run_node(
        case, "client.mjs", transport, behaviour, task=f"({transport}, {behaviour})"
    )


async def run_node(case: McpCase, script: str, *args: str, task: str) -> dict[str, Any]:
    """Runs a script of tests/mcp/node on the newsletter scenario; its last line, as JSON."""
    environment = os.environ | {
        "MCP_URL": case.url,
        "MCP_TARGET": case.target,
        "MCP_KEY": case.keys.keys["beta-2"],
        "OUTRIDER": OUTRIDER,
        "TASK": f"Scenario newsletter {task}",
        "START_URL": f"{case.sites}/shop/newsletter.html",
        "MODEL": case.model("newsletter"),
        "VALUES": json.dumps(SUBSCRIBER),
    }
    process = await asyncio.create_subprocess_exec(
        node(), script, *args,
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
        "automate", "research", "get_run", "list_runs", "cancel_run", "start_session",
        "end_session", "read_artifact",
    ]  # fmt: skip
    content = report["result"]["structuredContent"]
    assert (content["state"], content["final_answer"]) == ("succeeded", ANSWERS[behaviour])
    kinds = ["approval" if "decision" in a["requestedSchema"]["properties"] else "form"
             for a in report["asked"]]  # fmt: skip
    assert kinds == (["form", "approval"] if behaviour == "answer" else ["form"])
    assert "Waiting for form data: Name, Email, Topic" in report["progress"]


async def test_a_request_timeout_leaves_the_run_to_be_picked_up(mcp_case: McpCase) -> None:
    """The TypeScript SDK's request timeout (8 s here, 60 s by default) cancels the call while
    the person takes 20 s over the form: the run goes on, get_run says how to pick it up, and
    get_run(wait) asks the form again, answered now; the run succeeds."""
    report = await run_node(mcp_case, "slow_person.mjs", task="(a slow person)")

    assert report["timeout"]["code"] == -32001, report["timeout"]  # the SDK's RequestTimeout
    meanwhile = report["meanwhile"]["structuredContent"]
    assert meanwhile["run"] == report["run"] and meanwhile["state"] == "input_required", meanwhile
    assert GOES_ON in meanwhile["notes"] and not report["meanwhile"].get("isError")
    content = report["result"]["structuredContent"]
    assert (content["state"], content["final_answer"]) == ("succeeded", "Subscribed."), content
    assert [a["withdrawn"] for a in report["asked"]] == [True, False, False], report["asked"]
    assert report["progress"][0].startswith(f"Started {report['run']}; if this call ends early")
    async with AsyncClient(mcp_case.target, api_key=mcp_case.keys.keys["beta-2"]) as client:
        run = await client.get_run(report["run"])
    assert (run.state, run.cancelled_by) == (run_pb2.RUN_STATE_SUCCEEDED, "")
