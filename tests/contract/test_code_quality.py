"""The project's own checks, run by the suite so CI and developers run the same ones.

They are slow on a loaded machine (mypy takes minutes there), so they have their own generous
timeout instead of the per-test one, and tests/conftest.py schedules them first."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.harness import REPO_ROOT

BIN = REPO_ROOT / ".venv" / "bin"

pytestmark = pytest.mark.long_running


def run(*command: str) -> None:
    tool = str(BIN / command[0]) if (BIN / command[0]).exists() else command[0]
    result = subprocess.run([tool, *command[1:]], cwd=REPO_ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_lint() -> None:
    run("ruff", "check", "server", "client", "tests", "bench")


def test_ruff_format() -> None:
    run("ruff", "format", "--check", "server", "client", "tests", "bench")


def test_mypy_strict_on_the_product_code() -> None:
    run(
        sys.executable,
        "-m",
        "mypy",
        "server",
        "client/outrider/client",
        "client/outrider/cli",
        "client/outrider/mcp",
    )
