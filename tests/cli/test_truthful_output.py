"""What the command prints is what happened: a listing piped to another program keeps every value
whole, a rejected approval reads as a rejection (not a failed action), a cancelled run as
cancelled (not "failed (task aborted)"), and flags read as flags in the help."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess

import pexpect  # type: ignore[import-untyped]

from outrider.client import AsyncClient, automate_params
from outrider.v1 import run_pb2
from tests.cli.conftest import CLI, CliServer
from tests.cli.test_terminal import plain, spawn
from tests.support.harness import eventually


async def test_runs_list_piped_keeps_every_value_whole(cli_server: CliServer) -> None:
    async with AsyncClient(cli_server.target) as client:
        names = [(await client.create_run(automate_params("t"))).name for _ in range(2)]

        async def ended() -> bool:
            runs = [await client.get_run(name) for name in names]
            return all(run.state == run_pb2.RUN_STATE_SUCCEEDED for run in runs)

        await eventually(ended)
    env = {k: v for k, v in cli_server.env().items() if k != "COLUMNS"}  # a pipe: 80 columns
    done = await asyncio.to_thread(
        subprocess.run, [*CLI, "runs", "list"], env=env, capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["kind", "state", "created", "events", "run"]
    rows = [line.split() for line in lines[1:]]
    assert {row[-1] for row in rows} == set(names)
    assert all(row[:2] == ["automate", "succeeded"] for row in rows), done.stdout
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row[2]) for row in rows)
    assert "…" not in done.stdout


async def test_a_rejected_approval_prints_as_a_rejection(cli_server: CliServer) -> None:
    data = json.dumps({"steps": 1, "ask_approval": True})
    child = spawn(cli_server, "automate", "sign in", "--interactive", "--data", data)

    def reject() -> str:
        child.expect(r"Allow it\?")
        child.sendline("n")
        child.expect(pexpect.EOF)
        child.close()
        return plain(child.before)

    shown = await asyncio.to_thread(reject)
    assert "⊘ rejected: submit E9: refused at the terminal" in shown, shown
    assert "approved" not in shown


async def test_a_cancelled_run_shows_as_cancelled(cli_server: CliServer) -> None:
    async with AsyncClient(cli_server.target) as client:
        run = await client.create_run(automate_params("t", data={"steps": 1, "hold": True}))

        async def started() -> bool:
            return (await client.get_run(run.name)).last_sequence >= 3

        await eventually(started)
        await client.cancel_run(run.name, reason="no longer needed")
    events = await asyncio.to_thread(cli_server.run, "runs", "events", run.name)
    assert events.returncode == 1  # still not a success
    assert events.stdout.splitlines()[-1] == "⊘ cancelled by anonymous: no longer needed"
    assert "failed" not in events.stdout


def test_flags_read_as_flags_in_the_help() -> None:
    env = os.environ | {"COLUMNS": "100"}
    for command in ([], ["automate"], ["runs", "list"], ["demo"], ["keys", "create"]):
        done = subprocess.run(
            [*CLI, *command, "--help"], env=env, capture_output=True, text=True, check=True
        )
        assert "<bool>" not in done.stdout, done.stdout
        if not command:
            assert re.search(r"^\s+--json\s+One JSON object per line\.$", done.stdout, re.M)
            assert re.search(r"^\s+--target <str>\s+Server address", done.stdout, re.M)
