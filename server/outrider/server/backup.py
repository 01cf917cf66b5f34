"""A consistent copy of the data dir while the server runs.

    python -m outrider.server.backup DEST        (the data dir is OUTRIDER_DATA_DIR's)

SQLite's online backup copies each database as one snapshot, without stopping the server's
writes; then the artifact files the snapshot knows of are copied. Artifacts written after the
snapshot belong to runs the copy does not have, so they are left out. The research cache is left
out (it refills itself). Restore: stop the server, make DEST the data dir, start it; runs that
were active at the snapshot are closed as failed (SERVER_RESTARTED), as after any crash.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from outrider.server.settings import Settings

DATABASES = ("outrider.sqlite3", "corpus.sqlite3")


@dataclass
class BackupReport:
    databases: list[str]
    artifacts: int
    artifact_bytes: int
    missing: list[str]


def backup(data_dir: Path, dest: Path) -> BackupReport:
    """Copies the data dir into `dest`, which must not exist yet or be empty."""
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest} is not empty")
    dest.mkdir(parents=True, exist_ok=True)
    report = BackupReport([], 0, 0, [])
    for name in DATABASES:
        if (data_dir / name).exists():
            _copy_database(data_dir / name, dest / name)
            report.databases.append(name)
    if "outrider.sqlite3" in report.databases:
        _copy_artifacts(data_dir / "artifacts", dest, report)
    return report


def _copy_database(source: Path, target: Path) -> None:
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)  # in one step: a single consistent snapshot


def _copy_artifacts(source: Path, dest: Path, report: BackupReport) -> None:
    with closing(sqlite3.connect(dest / "outrider.sqlite3")) as db:
        rows = db.execute("SELECT run_id, id FROM artifacts ORDER BY run_id, id").fetchall()
    for run_id, artifact_id in rows:
        origin = source / run_id / artifact_id
        if not origin.exists():
            report.missing.append(f"{run_id}/{artifact_id}")
            continue
        (dest / "artifacts" / run_id).mkdir(parents=True, exist_ok=True)
        shutil.copy2(origin, dest / "artifacts" / run_id / artifact_id)
        report.artifacts += 1
        report.artifact_bytes += origin.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Copies the data dir while the server runs.")
    parser.add_argument("dest", type=Path, help="new or empty directory to copy into")
    args = parser.parse_args(argv)
    data_dir = Settings().data_dir
    report = backup(data_dir, args.dest)
    print(
        f"backed up {data_dir} to {args.dest}: {', '.join(report.databases) or 'no databases'}, "
        f"{report.artifacts} artifacts ({report.artifact_bytes} bytes)"
    )
    for missing in report.missing:
        print(f"warning: artifact file of {missing} is missing in the data dir", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
