"""clients/typescript: the generated, typed client (protoc-gen-es + connect-node over the gRPC
protocol) is current with proto/; installed from its `npm pack` tarball it brings its
dependencies, type-checks a consumer under `tsc --strict` (declarations included), and runs an
interactive automate run against a live server, answering its form request on the bidi stream;
its `engines` floor covers its dependencies' and the Node.js the tests run."""

from __future__ import annotations

import asyncio
import filecmp
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from outrider.v1 import run_service_pb2
from tests.client.proxy import CuttableProxy, answer_lost
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


def pack(out: Path) -> Path:
    """The package as a release ships it: `npm pack`'s tarball."""
    npm = shutil.which("npm")
    assert npm is not None
    command = [npm, "pack", "--pack-destination", str(out), "--loglevel=error"]
    done = subprocess.run(command, cwd=PACKAGE, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out / done.stdout.strip().splitlines()[-1]


CONSUMERS = (
    CONSUMER,
    Path(__file__).with_name("start_retry.ts"),
    Path(__file__).with_name("sessions.ts"),
)


@pytest.fixture(scope="module")
def consumers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packed package installed once into a scratch project, as its README says (npm fetches
    its dependencies), with every consumer script compiled by the pinned TypeScript's
    `tsc --strict`, declarations included (no --skipLibCheck): the project's folder."""
    node_ready()
    out = tmp_path_factory.mktemp("typescript")
    project = out / "consumer"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"type": "module", "private": True}))
    npm = shutil.which("npm")
    assert npm is not None
    install = [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", str(pack(out))]
    done = subprocess.run(install, cwd=project, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not (project / "node_modules" / "@outrider" / "client").is_symlink()
    for consumer in CONSUMERS:
        shutil.copy(consumer, project / consumer.name)
    tsc = PACKAGE / "node_modules" / ".bin" / "tsc"
    options = ["--strict", "--target", "es2022", "--module", "nodenext"]
    types = ["--types", "node", "--typeRoots", str(PACKAGE / "node_modules" / "@types")]
    result = subprocess.run(
        [str(tsc), *options, *types, *(consumer.name for consumer in CONSUMERS)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return project


def node_floor(package_json: Path) -> tuple[int, ...]:
    """The lowest Node.js version a package's `engines` allows (">=18.14.1" -> (18, 14, 1))."""
    wanted = json.loads(package_json.read_text()).get("engines", {}).get("node", ">=0")
    match = re.fullmatch(r">=\s*(\d+(?:\.\d+)*)", wanted.strip())
    assert match is not None, f"{package_json}: engines.node {wanted!r} is not a plain >= floor"
    return tuple(int(part) for part in match.group(1).split("."))


def test_engines_says_what_the_dependencies_need_and_the_tested_node_meets_it() -> None:
    node = node_ready()
    ours = node_floor(PACKAGE / "package.json")
    dependencies = json.loads((PACKAGE / "package.json").read_text())["dependencies"]
    for name in dependencies:
        theirs = node_floor(PACKAGE / "node_modules" / name / "package.json")
        assert ours >= theirs, f"engines.node allows {ours}, but {name} needs {theirs}"
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True)
    tested = tuple(int(part) for part in version.stdout.strip().lstrip("v").split("."))
    assert tested >= ours


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


# npm installs the tarball's dependencies from the registry and tsc checks every declaration:
# minutes on a loaded machine, once per module (the fixture's time counts to the first test).
@pytest.mark.timeout(600)
async def test_interactive_automate_run_through_the_typed_client(
    harness: Harness, tmp_path: Path, consumers: Path
) -> None:
    node = node_ready()
    script = consumers / "interactive.js"
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
    assert "credential: credentials/ts created=true password=true profiles=0" in text
    assert "pw-from-typescript" not in text
    assert text.strip().endswith("final answer: done")
    assert harness.agent.received_inputs == [{"E1": "ts@example.com"}]


@pytest.mark.timeout(600)
async def test_a_start_whose_answer_was_lost_is_retried_into_the_same_run(
    harness: Harness, tmp_path: Path, consumers: Path
) -> None:
    """createRun's answer is dropped and its connection cut after the server started the run:
    the client sends it again with the same request id and gets that run; a caller's own id
    is used as it is, by createRun and by the automate stream."""
    node = node_ready()
    script = consumers / "start_retry.js"
    proxy = CuttableProxy(harness.server.port)
    await proxy.start()
    process = await asyncio.create_subprocess_exec(
        node,
        str(script),
        f"http://127.0.0.1:{proxy.port}",
        cwd=tmp_path,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        assert await asyncio.wait_for(process.stdout.readline(), 60) == b"ready\n"

        async def create() -> str:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(b"go\n")
            return (await asyncio.wait_for(process.stdout.readline(), 60)).decode()

        created = await answer_lost(proxy, create(), lambda: _has_runs(harness, 1))
        output, _ = await asyncio.wait_for(process.communicate(), timeout=60)
        assert proxy.cuts == 1 and proxy.connections >= 2  # it connected again after the cut
    finally:
        await proxy.stop()
    assert created.startswith("created runs/"), created + output.decode()
    given = output.decode().split()
    assert given[0] == "given" and len(set(given[1:])) == 1, output.decode()
    names = await _run_names(harness)
    assert sorted(names) == sorted({created.split()[1], given[1]})  # two runs in all


@pytest.mark.timeout(600)
async def test_a_session_through_the_typed_client(
    harness: Harness, tmp_path: Path, consumers: Path
) -> None:
    process = await asyncio.create_subprocess_exec(
        node_ready(),
        str(consumers / "sessions.js"),
        f"http://{harness.target}",
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=60)
    lines = output.decode().splitlines()
    assert process.returncode == 0, output.decode()
    assert lines[0] == "ended 2 runs"
    assert lines[1].startswith("events sessionStarted run sessionEnded "), lines[1]


async def _run_names(harness: Harness) -> list[str]:
    listed = await harness.runs.ListRuns(run_service_pb2.ListRunsRequest())
    return [run.name for run in listed.runs]


async def _has_runs(harness: Harness, count: int) -> bool:
    return len(await _run_names(harness)) == count
