"""examples/node: a Node.js client (@grpc/grpc-js + @grpc/proto-loader on our .proto files) runs an
interactive automate run against a live server and answers its form request on the bidi stream."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess

import pytest

from tests.support.harness import REPO_ROOT, Harness

EXAMPLE = REPO_ROOT / "examples" / "node"


def node_ready() -> str:
    """The node binary, with the example's packages installed (npm ci when they are missing)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed (scripts/bootstrap.sh system --test installs it)")
    if not (EXAMPLE / "node_modules" / "@grpc" / "grpc-js").is_dir():
        npm = shutil.which("npm")
        assert npm is not None, "node is installed but npm is not"
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=EXAMPLE,
            check=True,
            timeout=300,
        )
    return node


async def test_node_client_answers_the_form_over_the_bidi_stream(harness: Harness) -> None:
    node = node_ready()
    env = os.environ | {
        "OUTRIDER_TARGET": harness.target,
        "OUTRIDER_DATA": json.dumps({"steps": 2, "ask_input": True}),
        "OUTRIDER_ANSWERS": json.dumps({"Email": "node@example.com"}),
    }
    process = await asyncio.create_subprocess_exec(
        node,
        "interactive.js",
        "log in",
        "http://127.0.0.1/login",
        cwd=EXAMPLE,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=60)
    text = output.decode()
    assert process.returncode == 0, text
    assert "form requested: Email" in text
    assert "answer to" in text and "accepted" in text
    assert text.strip().endswith("final answer: done")
    assert harness.agent.received_inputs == [{"E1": "node@example.com"}]
