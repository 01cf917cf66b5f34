"""`buf breaking`: the contract stays compatible with the last released one, whose image is
committed in proto/releases (scripts/release-contract writes it), so this runs in any clone."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.support.harness import REPO_ROOT

BUF = REPO_ROOT / "node_modules" / ".bin" / "buf"


def last_release() -> Path:
    def version(image: Path) -> tuple[int, ...]:
        return tuple(int(n) for n in re.findall(r"\d+", image.name.removeprefix("outrider-v1-")))

    images = sorted((REPO_ROOT / "proto" / "releases").glob("outrider-v1-*.binpb"), key=version)
    assert images, "no released contract in proto/releases (scripts/release-contract)"
    return images[-1]


def breaking(workspace: Path) -> subprocess.CompletedProcess[str]:
    assert BUF.exists(), "scripts/test installs buf with npm"
    command = [str(BUF), "breaking", "--against", str(last_release())]
    return subprocess.run(command, cwd=workspace, capture_output=True, text=True, timeout=120)


def test_the_contract_is_compatible_with_the_last_release() -> None:
    result = breaking(REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_renamed_field_would_be_refused(tmp_path: Path) -> None:
    shutil.copy(REPO_ROOT / "buf.yaml", tmp_path / "buf.yaml")
    shutil.copytree(REPO_ROOT / "proto" / "outrider", tmp_path / "proto" / "outrider")
    run_proto = tmp_path / "proto" / "outrider" / "v1" / "run.proto"
    text = run_proto.read_text()
    assert " last_sequence = " in text
    run_proto.write_text(text.replace(" last_sequence = ", " final_sequence = "))
    result = breaking(tmp_path)
    assert result.returncode != 0
    assert 'changed name from "last_sequence" to "final_sequence"' in result.stdout, result.stdout
