"""docs/operations.md lists every setting, generated from the settings classes: the test fails
when the document and the code disagree, and every variable it names really configures the
server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from outrider.server.settings import Settings
from outrider.server.settings_doc import (
    BEGIN,
    END,
    TELEMETRY_BEGIN,
    TELEMETRY_END,
    SettingRow,
    markdown_table,
    setting_rows,
)
from outrider.server.telemetry import catalogue
from tests.support.harness import REPO_ROOT

DOC = REPO_ROOT / "docs" / "operations.md"


def generated_section(text: str) -> str:
    start = text.index("\n", text.index(BEGIN)) + 1
    return text[start : text.index(END)]


def test_the_settings_table_is_current() -> None:
    """Regenerate with: python -m outrider.server.settings_doc --write docs/operations.md"""
    assert generated_section(DOC.read_text()) == markdown_table()


def test_the_metrics_spans_and_log_fields_are_current() -> None:
    text = DOC.read_text()
    start = text.index("\n", text.index(TELEMETRY_BEGIN)) + 1
    assert text[start : text.index(TELEMETRY_END)] == catalogue.markdown() + "\n"


def test_check_fails_on_a_stale_document(tmp_path: Path) -> None:
    stale = tmp_path / "operations.md"
    stale.write_text(DOC.read_text().replace("`OUTRIDER_RETENTION`", "`OUTRIDER_KEEP`"))
    command = [sys.executable, "-m", "outrider.server.settings_doc", "--check"]
    assert subprocess.run([*command, str(stale)], capture_output=True).returncode == 1
    assert subprocess.run([*command, str(DOC)], capture_output=True).returncode == 0


def test_every_leaf_setting_has_a_row() -> None:
    nested = {"providers", "browser", "research", "sessions", "webhooks", "oidc", "vault"}
    leaves = len(Settings.model_fields) - len(nested)
    for name in nested:
        leaves += len(type(getattr(Settings(), name)).model_fields)
    assert len(list(setting_rows())) == leaves


@pytest.mark.parametrize("row", list(setting_rows()), ids=lambda row: row.variables[0])
def test_every_documented_variable_configures_the_server(
    row: SettingRow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each documented variable is read: a probe value either is refused or changes the loaded
    settings (a misspelt name would be ignored silently and change nothing)."""
    defaults = Settings().model_dump(mode="json")
    for variable in row.variables:
        with monkeypatch.context() as patched:
            patched.setenv(variable, "probe-value-{[")
            try:
                loaded = Settings().model_dump(mode="json")
            except ValueError:
                continue  # refused: the variable was read
            assert loaded != defaults, f"{variable} changes nothing"
