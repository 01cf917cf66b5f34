"""The `outrider` command for scripts: --json lines, runs list|show|cancel|events, screenshots and
exit codes."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

from outrider.client import AsyncClient, automate_params
from tests.cli.conftest import CliServer
from tests.support.harness import eventually
from tests.support.script_agent import ARTIFACT_BYTES


async def test_json_prints_one_event_per_line_and_saves_screenshots(
    cli_server: CliServer, tmp_path: Path
) -> None:
    data = json.dumps({"steps": 2, "artifact": True})
    shots = tmp_path / "shots"
    done = await asyncio.to_thread(
        cli_server.run, "--json", "automate", "t", "--data", data, "--screenshots", str(shots)
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [int(line["sequence"]) for line in lines] == list(range(1, len(lines) + 1))
    assert lines[0]["event"] == "task:setup" and lines[-1]["event"] == "done"
    saved = list(shots.iterdir())
    assert [p.read_bytes() for p in saved] == [ARTIFACT_BYTES]


async def test_failed_run_exits_1_and_refused_call_exits_3(cli_server: CliServer) -> None:
    failed, refused, missing = await asyncio.gather(
        asyncio.to_thread(cli_server.run, "automate", "t", "--data", '{"fail": true}'),
        asyncio.to_thread(cli_server.run, "automate", ""),
        asyncio.to_thread(cli_server.run, "runs", "show", "runs/" + "0" * 24),
    )
    assert failed.returncode == 1
    assert refused.returncode == 3
    assert "INVALID_ARGUMENT" in refused.stdout and "params.task" in refused.stdout
    assert missing.returncode == 3 and "NOT_FOUND" in missing.stdout


async def test_runs_list_show_events_after_and_cancel(cli_server: CliServer) -> None:
    async with AsyncClient(cli_server.target) as client:
        run = await client.create_run(automate_params("t", data={"steps": 2, "hold": True}))

        async def started() -> bool:
            return (await client.get_run(run.name)).last_sequence >= 5

        await eventually(started)
    listed, shown = await asyncio.gather(
        asyncio.to_thread(cli_server.run, "runs", "list"),
        asyncio.to_thread(cli_server.run, "--json", "runs", "show", run.name),
    )
    assert run.name in listed.stdout and "running" in listed.stdout
    assert json.loads(shown.stdout)["state"] == "RUN_STATE_RUNNING"
    run_id = run.name.removeprefix("runs/")
    cancelled = await asyncio.to_thread(cli_server.run, "runs", "cancel", run_id)
    assert cancelled.returncode == 0
    events = await asyncio.to_thread(
        cli_server.run, "--json", "runs", "events", run_id, "--after", "3"
    )
    sequences = [int(json.loads(line)["sequence"]) for line in events.stdout.splitlines()]
    assert sequences[0] == 4 and sequences == list(range(4, 4 + len(sequences)))
    assert events.returncode == 1  # the run was cancelled


def test_the_client_package_imports_without_the_cli_or_server_extras(tmp_path: Path) -> None:
    import subprocess
    import sys

    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in {'typer', 'rich', 'pydantic', 'google_rpc'} "
        "or name.startswith(('outrider.server', 'google.rpc')):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
    )
    code = "import outrider.client, outrider.client.aio, outrider.client.sync; print('ok')"
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_serve_starts_the_real_server_and_stops_on_sigterm(tmp_path: Path) -> None:
    import os
    import re
    import signal
    import subprocess

    from outrider.client import Client
    from tests.cli.conftest import CLI

    env = os.environ | {
        "OUTRIDER_DATA_DIR": str(tmp_path / "data"),
        "OUTRIDER_HOST": "127.0.0.1",
        "OUTRIDER_PORT": "0",
        "OUTRIDER_REST_ENABLED": "false",
        "PYTHONUNBUFFERED": "1",
    }
    process = subprocess.Popen(
        [*CLI, "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert process.stdout is not None
        port = ""
        while not port and (line := process.stdout.readline()):
            port = (re.findall(r"serving on [^:]+:(\d+)", line) or [""])[0]
        with Client(f"127.0.0.1:{port}") as client:
            assert client.list_runs().items == []
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


async def test_api_key_from_the_option_or_the_environment(tmp_path: Path) -> None:
    import os
    import subprocess

    from outrider.server.grpc_edge.server import OutriderServer
    from tests.cli.conftest import CLI, PasswordAgent
    from tests.support.harness import settings_for_tests

    agent = PasswordAgent()
    settings = settings_for_tests(tmp_path / "keyed", api_keys=("k-123",))
    server = OutriderServer(settings, {1: agent, 2: agent})  # type: ignore[dict-item]
    port = await server.start()
    env = os.environ | {"OUTRIDER_TARGET": f"127.0.0.1:{port}", "COLUMNS": "200"}

    def run(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*CLI, *args], env=env | extra, capture_output=True, text=True, timeout=60, check=False
        )

    try:
        anonymous, by_option, by_env = await asyncio.gather(
            asyncio.to_thread(run, "runs", "list"),
            asyncio.to_thread(run, "--api-key", "k-123", "runs", "list"),
            asyncio.to_thread(run, "runs", "list", OUTRIDER_API_KEY="k-123"),
        )
    finally:
        await server.stop()
    assert anonymous.returncode == 3 and "UNAUTHENTICATED" in anonymous.stdout
    assert by_option.returncode == 0, by_option.stdout
    assert by_env.returncode == 0, by_env.stdout


async def test_runs_delete_removes_a_finished_run_and_refuses_an_active_one(
    cli_server: CliServer,
) -> None:
    async with AsyncClient(cli_server.target) as client:
        held = await client.create_run(automate_params("t", data={"steps": 1, "hold": True}))
        done = await client.create_run(automate_params("t", data={"artifact": True}))
        await eventually(lambda: _finished(client, done.name))
        refused, deleted = await asyncio.gather(
            asyncio.to_thread(cli_server.run, "runs", "delete", held.name),
            asyncio.to_thread(cli_server.run, "--json", "runs", "delete", done.name),
        )
        assert refused.returncode == 3 and "RUN_ACTIVE" in refused.stdout
        assert deleted.returncode == 0, deleted.stdout
        line = json.loads(deleted.stdout)
        assert line == {"deleted": done.name, "freedArtifactBytes": len(ARTIFACT_BYTES)}
        again = await asyncio.to_thread(cli_server.run, "runs", "delete", done.name)
        assert again.returncode == 3 and "NOT_FOUND" in again.stdout
        await client.cancel_run(held.name)


async def _finished(client: AsyncClient, name: str) -> bool:
    return (await client.get_run(name)).HasField("end_time")


async def test_a_request_id_given_twice_starts_one_run(cli_server: CliServer) -> None:
    request_id = str(uuid.uuid4())
    arguments = ("--json", "automate", "t", "--request-id", request_id)
    started = [await asyncio.to_thread(cli_server.run, *arguments) for _ in range(2)]
    assert [done.returncode for done in started] == [0, 0], started[0].stderr
    runs = [{json.loads(line)["run"] for line in done.stdout.splitlines()} for done in started]
    assert runs[0] == runs[1] and len(runs[0]) == 1  # the second printed the same run's events
    async with AsyncClient(cli_server.target) as client:
        assert len((await client.list_runs()).items) == 1
