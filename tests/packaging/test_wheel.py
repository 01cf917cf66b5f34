"""The package installs: `python -m build` makes a wheel and an sdist that pass `twine check`, and
the wheel alone, in a fresh virtualenv with only grpcio and protobuf, is a working client."""

from __future__ import annotations

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


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, REPO_ROOT)
    return out


def test_build_makes_a_wheel_and_an_sdist_that_twine_accepts(dist: Path) -> None:
    version = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
    names = sorted(p.name for p in dist.iterdir())
    assert names == [f"outrider-{version}-py3-none-any.whl", f"outrider-{version}.tar.gz"], names
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        contents = set(archive.namelist())
    # typed packages, and the documented descriptors server reflection serves
    assert {
        "outrider/client/py.typed",
        "outrider/v1/py.typed",
        "outrider/v1/descriptors.binpb",
    } <= contents
    output = run(sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()))
    assert output.count("PASSED") == 2, output


def test_the_wheel_alone_is_a_client_in_a_fresh_venv(dist: Path, tmp_path: Path) -> None:
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
