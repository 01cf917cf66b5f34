"""The console's UI libraries are the pinned npm packages, byte for byte, with their licences
(scripts/vendor-console writes them; a hand-edited or stale copy fails here)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.harness import REPO_ROOT

VENDORED = REPO_ROOT / "server" / "outrider" / "server" / "console_edge" / "static" / "vendor"


def test_the_vendored_files_are_the_pinned_packages(tmp_path: Path) -> None:
    subprocess.run([REPO_ROOT / "scripts" / "vendor-console", str(tmp_path)], check=True)
    fresh = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    committed = {path.name: path.read_bytes() for path in VENDORED.iterdir()}
    assert fresh == committed
    assert {"htmx.LICENSE.txt", "htmx-ext-sse.LICENSE.txt"} <= set(committed)


def test_the_versions_are_pinned_exactly() -> None:
    wanted = json.loads((REPO_ROOT / "package.json").read_text())["devDependencies"]
    for package in ("htmx.org", "htmx-ext-sse", "axe-core"):
        assert wanted[package][0].isdigit(), f"{package} is not pinned: {wanted[package]}"
    versions = (VENDORED / "VERSIONS.txt").read_text()
    assert f"htmx.org {wanted['htmx.org']}" in versions
    assert f"htmx-ext-sse {wanted['htmx-ext-sse']}" in versions
