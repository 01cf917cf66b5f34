"""`outrider session start|show|list|end|events` and `automate --session`, as scripts use them
(--json lines and exit codes), against a real server."""

from __future__ import annotations

import asyncio
import json
import uuid

from outrider.client import AsyncClient
from tests.cli.conftest import CliServer


async def test_a_session_from_the_command_line(cli_server: CliServer) -> None:
    started = await asyncio.to_thread(
        cli_server.run, "--json", "session", "start", "--idle-timeout", "60"
    )
    assert started.returncode == 0, started.stderr
    session = json.loads(started.stdout)
    assert session["state"] == "SESSION_STATE_IDLE" and session["idleTimeout"] == "60s"
    session_id = session["name"].removeprefix("sessions/")
    runs = [
        await asyncio.to_thread(cli_server.run, "automate", "t", "--session", session_id)
        for _ in range(2)
    ]
    assert [run.returncode for run in runs] == [0, 0], runs[-1].stdout
    shown = await asyncio.to_thread(cli_server.run, "--json", "session", "show", session_id)
    assert json.loads(shown.stdout)["runCount"] == 2
    listed = await asyncio.to_thread(cli_server.run, "session", "list")
    assert session["name"] in listed.stdout and "runs=2" in listed.stdout
    ended = await asyncio.to_thread(cli_server.run, "--json", "session", "end", session_id)
    assert json.loads(ended.stdout)["endReason"] == "SESSION_END_REASON_ENDED"
    events = await asyncio.to_thread(cli_server.run, "session", "events", session["name"])
    lines = [json.loads(line) for line in events.stdout.splitlines()]
    assert [int(line["sequence"]) for line in lines] == list(range(1, len(lines) + 1))
    assert "sessionStarted" in lines[0] and "sessionEnded" in lines[-1]
    assert len({line["invocation"] for line in lines if "invocation" in line}) == 2
    missing = await asyncio.to_thread(cli_server.run, "session", "show", "0" * 24)
    assert missing.returncode == 3 and "NOT_FOUND" in missing.stdout


async def test_a_session_names_a_profile(cli_server: CliServer) -> None:
    made = await asyncio.to_thread(cli_server.run, "profiles", "create", "for-sessions")
    assert made.returncode == 0, made.stdout + made.stderr
    started = await asyncio.to_thread(
        cli_server.run, "--json", "session", "start", "--profile", "for-sessions"
    )
    assert started.returncode == 0, started.stdout + started.stderr
    session = json.loads(started.stdout)
    assert session["profile"] == "profiles/for-sessions"
    await asyncio.to_thread(cli_server.run, "session", "end", session["name"])
    missing = await asyncio.to_thread(cli_server.run, "session", "start", "--profile", "nope")
    assert missing.returncode == 3 and "profiles/nope does not exist" in missing.stdout


async def test_a_request_id_given_twice_starts_one_session(cli_server: CliServer) -> None:
    request_id = str(uuid.uuid4())
    arguments = ("--json", "session", "start", "--kind", "research", "--request-id", request_id)
    started = [await asyncio.to_thread(cli_server.run, *arguments) for _ in range(2)]
    assert [done.returncode for done in started] == [0, 0], started[0].stdout + started[0].stderr
    names = {json.loads(done.stdout)["name"] for done in started}
    assert len(names) == 1
    async with AsyncClient(cli_server.target) as client:
        sessions, _ = await client.sessions.list()
        assert [session.name for session in sessions if session.name in names] == [*names]
        await client.sessions.end(names.pop())
    reused = await asyncio.to_thread(cli_server.run, *arguments, "--idle-timeout", "30")
    assert reused.returncode != 0 and "IDEMPOTENCY_KEY_REUSED" in reused.stdout
    malformed = await asyncio.to_thread(cli_server.run, "session", "start", "--request-id", "x")
    assert malformed.returncode != 0
    assert "request_id: must be a UUID such as" in malformed.stdout, malformed.stdout
