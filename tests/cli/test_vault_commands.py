"""`outrider credentials` and `outrider profiles`: a credential's password and TOTP seed come from
a hidden prompt or from stdin, never from the command line, and no command prints them; profiles
are created, listed, shown, logged in by hand and deleted; `automate` names them."""

from __future__ import annotations

import asyncio
import json
import subprocess

import pexpect  # type: ignore[import-untyped]

from outrider.client import AsyncClient
from tests.cli.conftest import CLI, CliServer

SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


def with_stdin(server: CliServer, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], input=text, env=server.env(), capture_output=True, text=True, timeout=60
    )


async def test_a_credential_is_set_from_stdin_and_never_printed(cli_server: CliServer) -> None:
    made = await asyncio.to_thread(
        with_stdin, cli_server, f"pw-canary-1\n{SEED}\n", "credentials", "set", "crm",
        "--origin", "https://crm.example", "--username", "ada", "--totp", "--stdin",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert "credentials/crm" in made.stdout and "username,password,totp" in made.stdout
    listed = await asyncio.to_thread(cli_server.run, "--json", "credentials", "list")
    shown = json.loads(listed.stdout)
    assert shown["name"] == "credentials/crm" and shown["hasTotp"]
    for output in (made.stdout + made.stderr, listed.stdout):
        assert "pw-canary-1" not in output and SEED not in output
    argv = await asyncio.to_thread(
        cli_server.run, "credentials", "set", "x", "--origin", "https://a.example",
        "--password", "pw-on-the-command-line",
    )  # fmt: skip
    assert argv.returncode == 2 and "No such option" in argv.stderr


async def test_a_credential_is_set_from_hidden_prompts(cli_server: CliServer) -> None:
    def prompted() -> str:
        child = pexpect.spawn(
            CLI[0], [*CLI[1:], "credentials", "set", "mail", "--origin", "https://mail.example",
                     "--totp"], env=cli_server.env(), encoding="utf-8", timeout=30,
        )  # fmt: skip
        child.expect("Password")
        child.sendline("pw-canary-2")
        child.expect("TOTP seed")
        child.sendline(SEED)
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0, child.before
        return str(child.before)

    output = await asyncio.to_thread(prompted)
    assert "credentials/mail" in output and "password,totp" in output
    assert "pw-canary-2" not in output and SEED not in output  # the prompts do not echo


async def test_profiles_are_made_listed_logged_in_and_deleted(cli_server: CliServer) -> None:
    made = await asyncio.to_thread(
        cli_server.run, "profiles", "create", "crm", "--check-url",
        "https://crm.example/account", "--check-text", "Sign out",
    )  # fmt: skip
    assert made.returncode == 0 and "profiles/crm" in made.stdout, made.stderr
    listed = await asyncio.to_thread(cli_server.run, "--json", "profiles", "list")
    profile = json.loads(listed.stdout)
    assert profile["name"] == "profiles/crm" and profile["check"]["text"] == "Sign out"
    login = await asyncio.to_thread(cli_server.run, "--json", "profiles", "login", "crm")
    run = json.loads(login.stdout)
    assert run["options"]["byHand"] and run["automate"]["url"] == "https://crm.example/account"
    await asyncio.to_thread(
        with_stdin, cli_server, "pw\n", "credentials", "set", "crm",
        "--origin", "https://crm.example", "--stdin",
    )  # fmt: skip
    started = await asyncio.to_thread(
        cli_server.run, "--json", "automate", "t", "--profile", "crm", "--profile-save",
        "on_success", "--credential", "crm",
    )  # fmt: skip
    assert started.returncode == 0, started.stdout + started.stderr
    async with AsyncClient(cli_server.target) as client:
        page = await client.list_runs(page_size=1)
        options = page.items[0].options
    assert options.profile == "profiles/crm" and list(options.credentials) == ["credentials/crm"]
    deleted = await asyncio.to_thread(cli_server.run, "profiles", "delete", "crm")
    assert deleted.returncode == 0 and "deleted profiles/crm" in deleted.stdout
    missing = await asyncio.to_thread(cli_server.run, "profiles", "show", "crm")
    assert missing.returncode == 3 and "NOT_FOUND" in missing.stdout
