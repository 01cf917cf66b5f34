"""The MCP edge is an edge of its own: it imports the core, security/ and the shared MCP server
(outrider.mcp), never another edge; the shared server imports nothing of the server at all, so the
stdio bridge of the client package runs without it."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.harness import REPO_ROOT

EDGE = REPO_ROOT / "server" / "outrider" / "server" / "mcp_edge"
SHARED = REPO_ROOT / "client" / "outrider" / "mcp"


def imported(folder: Path) -> set[str]:
    modules: set[str] = set()
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules.add(node.module)
            elif isinstance(node, ast.Import):
                modules.update(alias.name for alias in node.names)
    return modules


def test_the_mcp_edge_imports_no_other_edge() -> None:
    ours = {m for m in imported(EDGE) if m.startswith("outrider.server.")}
    allowed = ("outrider.server.core", "outrider.server.security", "outrider.server.mcp_edge")
    assert ours and all(m.startswith(allowed) or m.endswith((".settings", ".telemetry.logs"))
                        for m in ours), sorted(ours)  # fmt: skip


def test_the_shared_mcp_server_needs_no_server_code() -> None:
    assert not {m for m in imported(SHARED) if m.startswith("outrider.server")}
