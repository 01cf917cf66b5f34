"""The image smoke test's driver (scripts/smoke/drive.py), run here against this checkout with the
Dockerfile's own ENTRYPOINT and HEALTHCHECK commands, so `make image-smoke` cannot rot between
the (opt-in, slow) image builds: a browser run and a research run must succeed, then a clean exit.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.harness import REPO_ROOT
from tests.support.ports import free_port

IMAGE_PYTHON = "/opt/outrider/venv/bin/python"


def dockerfile_command(instruction: str) -> list[str]:
    """The exec-form JSON array of a Dockerfile instruction, with the image's interpreter
    replaced by this one."""
    text = (REPO_ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    match = re.search(rf"^{instruction}\b.*?(\[.*\])\s*$", text, re.MULTILINE)
    assert match, f"no exec-form {instruction} in the Dockerfile"
    return [sys.executable if arg == IMAGE_PYTHON else arg for arg in json.loads(match.group(1))]


def test_the_smoke_driver_passes_against_this_checkout(tmp_path: Path) -> None:
    entry = dockerfile_command("ENTRYPOINT")
    health = ["CMD", *dockerfile_command("HEALTHCHECK")]  # as `podman image inspect` shows it
    assert entry[1:] == ["-m", "outrider.server"]
    port = free_port()
    # as the image sets it: the smoke server must listen on loopback all the same
    env = os.environ | {
        "OUTRIDER_DATA_DIR": str(tmp_path),
        "OUTRIDER_PORT": str(port),
        "OUTRIDER_HOST": "0.0.0.0",
        "OUTRIDER_REST_HOST": "0.0.0.0",
    }
    driver = REPO_ROOT / "scripts" / "smoke" / "drive.py"
    done = subprocess.run(
        [sys.executable, str(driver), json.dumps(entry), json.dumps(health)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    for line in ("grpc.health Check -> SERVING", "Automate: runs/", "Research: runs/"):
        assert f"image-smoke: {line}" in output, output
    assert "image-smoke: clean exit after SIGTERM" in output
    assert f"outrider: serving on 127.0.0.1:{port}" in output
    assert re.search(r"outrider: REST/SSE on http://127\.0\.0\.1:\d+/v1", output), output
