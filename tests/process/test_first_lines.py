"""The server's first lines name every door of its REST port (the API, the console, MCP, A2A), and
each URL they print answers: a newcomer can copy any of them into a browser or a client."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support.harness import REPO_ROOT

DOORS = ("REST/SSE", "Console", "MCP", "A2A")


def test_the_first_lines_name_every_door_and_each_answers(tmp_path: Path) -> None:
    env = os.environ | {
        "OUTRIDER_DATA_DIR": str(tmp_path),
        "OUTRIDER_HOST": "127.0.0.1",
        "OUTRIDER_PORT": "0",
        "OUTRIDER_REST_HOST": "127.0.0.1",
        "OUTRIDER_REST_PORT": "0",
        "OUTRIDER_MODEL": "",
        "OUTRIDER_API_KEYS": "",
        "PYTHONUNBUFFERED": "1",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "outrider.server"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        urls: dict[str, str] = {}
        while len(urls) < len(DOORS):
            line = process.stdout.readline()
            assert line, f"the server stopped before naming its doors: {urls}"
            found = re.match(r"outrider: (REST/SSE|Console|MCP|A2A) on (\S+)", line)
            if found:
                urls[found.group(1)] = found.group(2)
        origin = urls["REST/SSE"].removesuffix("/v1")
        assert urls["Console"] == f"{origin}/console/"
        assert urls["MCP"] == f"{origin}/mcp"
        assert urls["A2A"] == f"{origin}/.well-known/agent-card.json"
        with httpx.Client(timeout=30) as client:
            assert client.get(urls["Console"], follow_redirects=True).status_code == 200
            assert client.get(urls["A2A"]).json()["name"]
            assert client.get(f"{origin}/healthz").status_code in (200, 503)  # no model here
            mcp = client.post(urls["MCP"], json={}, headers={"Accept": "application/json"})
            assert mcp.status_code < 500  # the MCP server answers (a bad request, here)
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()
