"""The release installs: `scripts/release` builds the wheel, the sdist and the TypeScript client's
npm tarball and checks them (twine, npm pack --dry-run, the wheel with its extras in a fresh
virtualenv serving its own client); and the wheel alone, in a fresh virtualenv with only grpcio
and protobuf, is a working client."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from tests.support.harness import REPO_ROOT, ServerProcess

pytestmark = pytest.mark.long_running  # 15-minute timeout, scheduled first (tests/conftest.py)

# Runs inside the fresh virtualenv against a live server whose port is argv[1].
CLIENT_SCRIPT = """
import importlib.util, sys
from outrider.client import Client, InvalidArgumentError, automate_params
for extra in ("playwright", "pydantic", "googleapis", "grpc_status", "typer"):
    assert importlib.util.find_spec(extra) is None, extra + " is not a core dependency"
with Client("127.0.0.1:" + sys.argv[1]) as client:
    assert client.list_runs().items == []
    try:
        client.create_run(automate_params(""))
    except InvalidArgumentError as error:
        print("violations", sorted(error.violations))
"""


def run(*command: str | Path) -> str:
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_the_release_installs_and_its_wheel_alone_is_a_client(tmp_path: Path) -> None:
    """One test, so the suite's parallel workers build the release once."""
    dist = released(tmp_path / "dist")
    the_release_is_a_wheel_an_sdist_and_an_npm_tarball(dist)
    the_wheel_alone_is_a_client_in_a_fresh_venv(dist, tmp_path)


def released(out: Path) -> Path:
    """What `scripts/release` makes (its checks passed, or this fails with their output)."""
    release = [str(REPO_ROOT / "scripts" / "release"), "--out", str(out), "--skip-contract-check"]
    done = subprocess.run(release, capture_output=True, text=True, timeout=840, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    for line in (
        "outrider demo --help: ok",
        "the installed client called the installed server: ok",
        "npm pack --dry-run: @outrider/client@",
    ):
        assert line in done.stdout, done.stdout[-4000:]
    assert done.stdout.count("PASSED") == 2, done.stdout  # twine, the wheel and the sdist
    return out


def the_release_is_a_wheel_an_sdist_and_an_npm_tarball(dist: Path) -> None:
    version = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
    package = json.loads((REPO_ROOT / "clients" / "typescript" / "package.json").read_text())
    assert package["version"] == version  # one version for everything
    names = sorted(p.name for p in dist.iterdir())
    assert names == [
        f"outrider-{version}-py3-none-any.whl",
        f"outrider-{version}.tar.gz",
        f"outrider-client-{version}.tgz",
    ], names
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        contents = set(archive.namelist())
    # typed packages, and the documented descriptors server reflection serves
    assert {
        "outrider/client/py.typed",
        "outrider/v1/py.typed",
        "outrider/v1/descriptors.binpb",
    } <= contents


def the_wheel_alone_is_a_client_in_a_fresh_venv(dist: Path, tmp_path: Path) -> None:
    env = tmp_path / "venv"
    venv.create(env, with_pip=False)  # the suite's pip installs into it: faster than ensurepip
    python = env / "bin" / "python"
    (wheel,) = dist.glob("*.whl")
    pip = (sys.executable, "-m", "pip", "--python", python, "install", "-q")
    run(*pip, "--no-deps", wheel)
    run(*pip, "-c", REPO_ROOT / "constraints.txt", "grpcio", "protobuf")  # the core dependencies
    server = ServerProcess(tmp_path / "server")
    server.start()
    try:
        output = run(python, "-c", CLIENT_SCRIPT, str(server.port))
    finally:
        server.close()
    assert "violations ['automate.task']" in output
