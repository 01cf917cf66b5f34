"""The rooms of the house and who may use whom (docs/architecture.md), as import-linter contracts
in pyproject.toml: edges never import one another, the core imports no edge, agent or transport,
agents no edge, the core's rooms stand in order, and storage backends are reached only through
the store contract. A new import against any of them fails here."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.harness import REPO_ROOT

LINT = [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()"]


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter over the packages under `root`, with `root`'s pyproject.toml."""
    env = {"PYTHONPATH": f"{root / 'server'}:{root / 'client'}", "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [*LINT, str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_import_contract_is_kept() -> None:
    result = lint(REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_an_edge_imported_by_the_core_breaks_a_contract(tmp_path: Path) -> None:
    for part in ("server", "client"):
        shutil.copytree(
            REPO_ROOT / part / "outrider",
            tmp_path / part / "outrider",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    shutil.copy(REPO_ROOT / "pyproject.toml", tmp_path)
    manager = tmp_path / "server/outrider/server/core/runs/manager.py"
    manager.write_text(manager.read_text() + "\nimport outrider.server.grpc_edge.server\n")
    result = lint(tmp_path)
    assert result.returncode != 0
    assert "The core imports no edge, no agent and no transport BROKEN" in result.stdout
    assert "outrider.server.core.runs.manager -> outrider.server.grpc_edge.server" in result.stdout
