"""The layers of design.md: the core imports no edge and no transport, and no edge imports
another (rest_port.py and service.py compose them)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.harness import REPO_ROOT

SERVER = REPO_ROOT / "server" / "outrider" / "server"
EDGES = sorted(p.name for p in SERVER.iterdir() if p.is_dir() and p.name.endswith("_edge"))
TRANSPORTS = ("grpc", "starlette", "uvicorn", "fastapi")


def imported(path: Path) -> set[str]:
    """Every module `path` imports (absolute names)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def edge_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["outrider", "server"] else None


def test_no_edge_imports_another() -> None:
    assert {"console_edge", "grpc_edge", "rest_edge"} <= set(EDGES)
    crossings = [
        f"{path.relative_to(SERVER)} imports {module}"
        for edge in EDGES
        for path in (SERVER / edge).rglob("*.py")
        for module in imported(path)
        if edge_of(module) in EDGES and edge_of(module) != edge
    ]
    assert crossings == []


def test_the_core_imports_no_edge_and_no_transport() -> None:
    found = [
        f"{path.relative_to(SERVER)} imports {module}"
        for path in (SERVER / "core").rglob("*.py")
        for module in imported(path)
        if edge_of(module) in EDGES or module.split(".")[0] in TRANSPORTS
    ]
    assert found == []
