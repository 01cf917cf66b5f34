"""Edges are thin layers over the core that never reach into one another (design §11): the A2A
edge imports the core and security only, the REST edge no other edge (the REST port's composer
puts them together), and the core no edge at all."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.harness import REPO_ROOT

SERVER = REPO_ROOT / "server" / "outrider" / "server"
EDGES = ("a2a_edge", "console_edge", "grpc_edge", "mcp_edge", "rest_edge")


def imported(package: Path) -> dict[str, set[str]]:
    """The outrider.server modules each file of `package` imports."""
    found: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        found[str(path.relative_to(SERVER))] = {n for n in names if n.startswith("outrider.")}
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("a2a_edge", [e for e in EDGES if e != "a2a_edge"]),
        ("rest_edge", [e for e in EDGES if e != "rest_edge"]),
        ("core", list(EDGES)),
    ],
)
def test_no_layer_reaches_into_an_edge_it_must_not(package: str, forbidden: list[str]) -> None:
    reached = {
        (path, name)
        for path, names in imported(SERVER / package).items()
        for name in names
        if any(name.startswith(f"outrider.server.{edge}") for edge in forbidden)
    }
    assert not reached, reached


def test_the_a2a_edge_stands_on_the_core_and_security_only() -> None:
    allowed = ("outrider.server.a2a_edge", "outrider.server.core", "outrider.server.security")
    allowed += ("outrider.server.settings", "outrider.server.telemetry", "outrider.v1")
    strays = {
        (path, name)
        for path, names in imported(SERVER / "a2a_edge").items()
        for name in names
        if not name.startswith(allowed)
    }
    assert not strays, strays
