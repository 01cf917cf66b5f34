"""The command's options as a newcomer types them: global options after the subcommand,
--trusted-host, --json that stays JSON (errors too), the one-line-per-step view, and a failure
that is never called an answer."""

from __future__ import annotations

import asyncio
import json

from outrider.cli.argv import hoist_global_options
from outrider.client import AsyncClient
from outrider.v1 import params_pb2
from tests.cli.conftest import CliServer

ARITY = {"--target": True, "--json": False, "-v": False}


def test_global_options_move_in_front_of_the_subcommand() -> None:
    hoisted = hoist_global_options(
        ARITY, ["runs", "list", "--json", "--target", "h:1", "--limit", "3"]
    )
    assert hoisted == ["--json", "--target", "h:1", "runs", "list", "--limit", "3"]
    assert hoist_global_options(ARITY, ["automate", "--target=h:2", "t"]) == [
        "--target=h:2",
        "automate",
        "t",
    ]
    assert hoist_global_options(ARITY, ["research", "--", "--json"]) == ["research", "--", "--json"]


async def test_options_after_the_subcommand_trusted_hosts_and_json_lines(
    cli_server: CliServer,
) -> None:
    data = json.dumps({"steps": 2})
    done = await asyncio.to_thread(
        cli_server.run,
        "automate", "t", "--data", data, "--trusted-host", "shop.example",
        "--trusted-host", "*.bank.example", "--json", "--recipes", "replay",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["event"] == "task:setup" and lines[-1]["event"] == "done"
    async with AsyncClient(cli_server.target) as client:
        run = await client.get_run(lines[0]["run"])
    assert list(run.automate.trusted_hostnames) == ["shop.example", "*.bank.example"]
    assert run.options.omit_prompts  # the CLI asks for events without prompt bodies
    assert run.options.recipes == params_pb2.RECIPE_MODE_REPLAY


async def test_json_errors_are_json_and_failures_are_not_answers(cli_server: CliServer) -> None:
    refused, failed, steps = await asyncio.gather(
        asyncio.to_thread(cli_server.run, "automate", "", "--json"),
        asyncio.to_thread(cli_server.run, "automate", "t", "--data", '{"fail": true}'),
        asyncio.to_thread(cli_server.run, "automate", "t", "--data", '{"steps": 3}'),
    )
    assert refused.returncode == 3
    error = json.loads(refused.stdout)["error"]
    assert error["status"] == "INVALID_ARGUMENT", error
    assert "params.task" in error["violations"]
    assert failed.returncode == 1
    assert "✗ failed (task failed): scripted failure" in failed.stdout
    assert "answer" not in failed.stdout
    shown = steps.stdout.splitlines()
    assert [line.split()[:2] for line in shown if line.startswith("step")] == [
        ["step", "1"],
        ["step", "2"],
        ["step", "3"],
    ]
    assert shown[-1].startswith("✓ answer:")


async def test_verbose_shows_a_line_per_event(cli_server: CliServer) -> None:
    done = await asyncio.to_thread(cli_server.run, "automate", "t", "--data", '{"steps": 2}', "-v")
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) > 4 and "   1 task t" in done.stdout
