"""clients/typescript: the generated, typed client (protoc-gen-es + connect-node over the gRPC
protocol) is current with proto/, type-checks a consumer under `tsc --strict`, and runs an
interactive automate run against a live server, answering its form request on the bidi stream."""

from __future__ import annotations

import asyncio
import filecmp
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.harness import REPO_ROOT, Harness

PACKAGE = REPO_ROOT / "clients" / "typescript"
CONSUMER = Path(__file__).with_name("interactive.ts")


def node_ready() -> str:
    """The node binary, with the package's npm packages installed (npm ci when missing)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed (scripts/bootstrap.sh system --test installs it)")
    if not (PACKAGE / "node_modules" / "@connectrpc" / "connect-node").is_dir():
        npm = shutil.which("npm")
        assert npm is not None, "node is installed but npm is not"
        command = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
        subprocess.run(command, cwd=PACKAGE, check=True, timeout=300)
    return node


def compile_consumer(out: Path) -> Path:
    """Installs the package into a scratch project by symlink, as a consumer would see it, and
    compiles the consumer script with tsc --strict."""
    (out / "node_modules" / "@outrider").mkdir(parents=True)
    (out / "node_modules" / "@outrider" / "client").symlink_to(PACKAGE, target_is_directory=True)
    (out / "package.json").write_text(json.dumps({"type": "module"}))
    shutil.copy(CONSUMER, out / "interactive.ts")
    tsc = PACKAGE / "node_modules" / ".bin" / "tsc"
    options = ["--strict", "--target", "es2022", "--module", "nodenext", "--skipLibCheck"]
    result = subprocess.run(
        [
            str(tsc),
            *options,
            "--types",
            "node",
            "--typeRoots",
            str(PACKAGE / "node_modules" / "@types"),
            "interactive.ts",
        ],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "interactive.js"


def test_generated_code_is_current(tmp_path: Path) -> None:
    node_ready()
    template = (REPO_ROOT / "buf.gen.yaml").read_text()
    committed = PACKAGE / "src" / "gen"
    config = template.replace("out: clients/typescript/src/gen", f"out: {tmp_path}")
    buf = REPO_ROOT / "node_modules" / ".bin" / "buf"
    subprocess.run([str(buf), "generate", "--template", config], cwd=REPO_ROOT, check=True)
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert fresh == sorted(p.relative_to(committed) for p in committed.rglob("*") if p.is_file())
    stale = [str(p) for p in fresh if not filecmp.cmp(tmp_path / p, committed / p, shallow=False)]
    assert not stale, f"run scripts/gen-proto; stale: {stale}"


async def test_interactive_automate_run_through_the_typed_client(
    harness: Harness, tmp_path: Path
) -> None:
    node = node_ready()
    script = compile_consumer(tmp_path)
    env = os.environ | {
        "OUTRIDER_DATA": json.dumps({"steps": 2, "ask_input": True}),
        "OUTRIDER_ANSWERS": json.dumps({"Email": "ts@example.com"}),
    }
    process = await asyncio.create_subprocess_exec(
        node,
        str(script),
        f"http://{harness.target}",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=60)
    text = output.decode()
    assert process.returncode == 0, text
    assert "form requested: Email" in text
    assert "answer accepted" in text
    assert "hand back: [failed_precondition] runs/" in text and "had no takeover to hand" in text
    assert text.strip().endswith("final answer: done")
    assert harness.agent.received_inputs == [{"E1": "ts@example.com"}]
