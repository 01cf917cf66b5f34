"""The test-only agent that docs/a2a.md runs the A2A TCK against starts as documented
(`python -m tests.a2a.tck_agent`), answers the TCK's first scenario over JSON-RPC, and stops on
SIGTERM."""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import uuid

import httpx

from tests.support.harness import REPO_ROOT


async def test_the_tck_agent_starts_and_completes_a_task() -> None:
    agent = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.a2a.tck_agent", "--port", "0",
        cwd=REPO_ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert agent.stdout is not None and agent.stderr is not None
    try:
        line = await asyncio.wait_for(agent.stdout.readline(), timeout=60)
        found = re.search(r"http://127\.0\.0\.1:\d+", line.decode())
        assert found, line.decode() + (await agent.stderr.read(4000)).decode()
        sent = {
            "role": "ROLE_USER",
            "messageId": f"tck-complete-task-{uuid.uuid4().hex}",
            "parts": [{"text": "Hello"}],
        }
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": sent}}
        async with httpx.AsyncClient(timeout=30) as http:
            answer = await http.post(
                f"{found.group()}/a2a", json=body, headers={"A2A-Version": "1.0"}
            )
        agent.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(agent.wait(), timeout=30) == 0
    finally:
        if agent.returncode is None:
            agent.kill()
            await agent.wait()
    task = answer.json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED", task
    assert task["artifacts"][0]["parts"][0]["text"] == "Hello from TCK"
