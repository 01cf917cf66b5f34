"""The rooms of the house and who may use whom (docs/architecture.md), as import-linter contracts
in pyproject.toml: edges never import one another, the core imports no edge, agent or transport,
agents no edge, the core's rooms stand in order, and storage backends are reached only through
the store contract. A new import against any of them fails here, as does any import circle."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp

from tests.support.harness import REPO_ROOT

ROOTS = ("outrider.server", "outrider.mcp", "outrider.client", "outrider.cli")
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


def circles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in imports[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = [stack.pop()]
            while group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return found


def test_circles_are_found() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_through_others() -> None:
    graph = grimp.build_graph(*ROOTS, cache_dir=None)
    imports = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert circles(imports) == []
