"""The `outrider` command driven like a person at a terminal (pexpect, a pseudo-terminal)."""

from __future__ import annotations

import asyncio
import json
import re

import pexpect  # type: ignore[import-untyped]

from tests.cli.conftest import CLI, CliServer

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def spawn(server: CliServer, *args: str) -> pexpect.spawn:
    return pexpect.spawn(
        CLI[0],
        [*CLI[1:], *args],
        env=server.env(),
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
    )


def plain(text: str | None) -> str:
    return ANSI.sub("", text or "")


def answer_login(child: pexpect.spawn) -> tuple[str, str]:
    """Types an email and a password, approves; returns what the terminal showed before the
    first field (the form's question), and after the password."""
    child.expect("Email: ")
    asked = plain(child.before)
    child.sendline("me@example.com")
    child.expect(r"Password \(hidden as you type\): ")
    assert "me@example.com" in plain(child.before)  # ordinary fields echo as typed
    child.sendline("hunter2-secret")
    child.expect(r"Allow it\?")
    shown_after_password = plain(child.before)
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    return asked, shown_after_password + plain(child.before)


async def test_interactive_run_prompts_hides_the_password_and_asks_approval(
    cli_server: CliServer,
) -> None:
    data = json.dumps({"steps": 1, "ask_password": True, "ask_approval": True})
    child = spawn(cli_server, "automate", "sign in", "--interactive", "--data", data)
    asked, shown = await asyncio.to_thread(answer_login, child)
    assert "hunter2-secret" not in shown  # typed without echo
    # the questions in a person's words: no element refs (the agent's are E1, E2, E9)
    assert "The agent needs Email and Password for “Sign in” on 127.0.0.1." in asked
    (approval,) = [line for line in shown.splitlines() if "Approval needed" in line]
    assert approval.strip() == (
        "Approval needed: Submit the form “Sign in” on 127.0.0.1 — this site is not one the run "
        "trusts"
    )
    assert not re.search(r"\bE\d+\b", asked), asked
    assert "approval APPROVAL_DECISION_APPROVE" in shown
    assert "answer: done" in shown
    assert child.exitstatus == 0
    assert cli_server.agent.received_inputs == [{"E1": "me@example.com", "E2": "hunter2-secret"}]


def read_all(child: pexpect.spawn) -> str:
    child.expect(pexpect.EOF)
    child.close()
    return plain(child.before)


async def test_research_shows_phases_and_renders_the_report(cli_server: CliServer) -> None:
    child = spawn(cli_server, "research", json.dumps({"steps": 2}), "--mode", "balanced")
    shown = await asyncio.to_thread(read_all, child)
    assert "iteration:start searching" in shown
    assert "Report" in shown and "A report [1]." in shown
    assert child.exitstatus == 0
