"""`python -m outrider.server.backup` copies the data dir while the server runs; a server started
on the copy serves the finished runs with their events and artifacts, and closes the run that
was active at the snapshot as failed (SERVER_RESTARTED)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from outrider.v1 import run_pb2, run_service_pb2
from tests.support.harness import REPO_ROOT, Harness, start_harness, stop_harness
from tests.support.requests import automate_request, collect, names
from tests.support.script_agent import ARTIFACT_BYTES


async def run_to_end(harness: Harness) -> list[str]:
    events = await collect(harness.runs.Automate(automate_request(steps=2, artifact=True)))
    return [events[0].run, *[e.artifact for e in events if e.artifact]]


def backup(data_dir: Path, dest: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "outrider.server.backup", str(dest)],
        cwd=REPO_ROOT,
        env=os.environ | {"OUTRIDER_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_a_backup_taken_while_serving_restores(tmp_path: Path) -> None:
    live, copy = tmp_path / "live", tmp_path / "copy"
    harness = await start_harness(live)
    try:
        finished = [await run_to_end(harness) for _ in range(3)]
        held = harness.runs.Automate(automate_request(steps=1, hold=True))
        active = (await held.read()).event.run
        done = await asyncio.to_thread(backup, live, copy)
        assert done.returncode == 0, done.stderr
        assert "3 artifacts" in done.stdout and not done.stderr
        refused = await asyncio.to_thread(backup, live, copy)
        assert refused.returncode != 0 and "not empty" in refused.stderr
        held.cancel()
    finally:
        await stop_harness(harness)

    restored = await start_harness(copy)
    try:
        for name, artifact in finished:
            events = await collect(
                restored.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))
            )
            assert names(events)[-1] == "done"
            request = run_service_pb2.ReadArtifactRequest(name=artifact)
            chunks = [c.data async for c in restored.runs.ReadArtifact(request)]
            assert b"".join(chunks) == ARTIFACT_BYTES
        run = (await restored.runs.GetRun(run_service_pb2.GetRunRequest(name=active))).run
        assert run.state == run_pb2.RUN_STATE_FAILED
        assert run.outcome.error_code == "SERVER_RESTARTED"
    finally:
        await stop_harness(restored)
