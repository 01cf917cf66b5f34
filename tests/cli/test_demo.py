"""`outrider demo` as a newcomer runs it: in a pseudo-terminal (pexpect) with the real server,
Chromium, the bundled site, corpus and scripted model. `--serve`'s printed commands are run as
printed, from a virtualenv without the test tools, by tests/packaging/test_first_contact.py."""

from __future__ import annotations

import asyncio
import io
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pexpect  # type: ignore[import-untyped]

from tests.cli.conftest import CLI
from tests.cli.test_terminal import plain

PASSWORD = "tea-Leaf-2231"
SHORT = "tea7"
# The sources list links each URL (`<http://…>`): the terminal gets it as a hyperlink.
LINK = r"(?:\x1b\]8;[^\x1b]*\x1b\\)?"


def demo_env() -> dict[str, str]:
    return os.environ | {"COLUMNS": "200", "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}


def spawn_demo(**env: str) -> tuple[pexpect.spawn, io.StringIO]:
    """`outrider demo` in a pseudo-terminal, and everything it shows."""
    child = pexpect.spawn(
        CLI[0],
        [*CLI[1:], "demo"],
        env=demo_env() | env,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 200),
    )
    child.logfile_read = io.StringIO()
    return child, child.logfile_read


def walk_through(child: pexpect.spawn) -> None:
    """A wrong email and a short password, then good ones; approves the submission."""
    child.expect("Email", timeout=90)
    child.sendline("not-an-email")
    child.expect("Password")
    child.sendline(SHORT)
    child.expect("did not accept those values")
    child.expect("Email")
    child.sendline("ada@example.com")
    child.expect("Password")
    child.sendline(PASSWORD)
    child.expect(r"Allow it\?")
    child.sendline("y")
    child.expect(pexpect.EOF, timeout=120)
    child.close()


async def test_demo_asks_in_the_terminal_re_asks_after_a_rejection_and_prints_a_report() -> None:
    child, screen = spawn_demo()
    await asyncio.to_thread(walk_through, child)
    shown = plain(screen.getvalue())
    assert "scripted demo model" in shown
    assert "The password needs at least 8 characters." in shown  # the page's own rule
    assert "Email: Please include an '@'" in shown
    assert PASSWORD not in shown and SHORT not in shown  # passwords are never echoed
    assert "✓ answer: Logged in." in shown
    report = shown[shown.index("Report") :]
    cited = re.findall(r"\[(S\d)\]", report)
    assert len(set(cited)) == 4, report
    for source in set(cited):  # each citation resolves to one listed source, listed once
        listed = rf"\[{source}\] .* — {LINK}http://127\.0\.0\.1:\d+/docs/"
        assert len(re.findall(listed, report)) == 1
    assert child.exitstatus == 0, shown


async def test_demo_declined_approval_is_reported_not_hung() -> None:
    def decline(child: pexpect.spawn) -> None:
        child.expect("Email", timeout=90)
        child.sendline("ada@example.com")
        child.expect("Password")
        child.sendline(PASSWORD)
        child.expect(r"Allow it\?")
        child.sendline("n")
        child.expect("you did not approve sending the form")
        child.expect("Report", timeout=120)
        child.expect(pexpect.EOF, timeout=60)
        child.close()

    child, screen = spawn_demo()
    await asyncio.to_thread(decline, child)
    shown = plain(screen.getvalue())
    # a rejection, said once as one (not also as a failed action), and no failed run
    assert "⊘ rejected: submit E7: refused at the terminal" in shown, shown
    assert "✗ the action failed" not in shown and "✗ failed" not in shown
    assert child.exitstatus == 0


def read_commands(process: subprocess.Popen[str]) -> dict[str, str]:
    """The printed commands by title, up to "The demo is up."."""
    assert process.stdout is not None
    commands: dict[str, str] = {}
    title, lines = "", []
    for line in process.stdout:
        if line.startswith("The demo is up."):
            break
        if line.startswith("# "):
            title, lines = line[2:].strip(), []
        elif title and line.strip():
            lines.append(line)
            commands[title] = "".join(lines)
    return commands


def test_a_server_without_a_model_says_how_to_configure_one_and_how_to_run_the_demo(
    tmp_path: Path,
) -> None:
    env = os.environ | {
        "OUTRIDER_MODEL": "",
        "OUTRIDER_ROLE_MODELS": "{}",
        "OUTRIDER_PORT": "0",
        "OUTRIDER_REST_ENABLED": "false",
        "OUTRIDER_DATA_DIR": str(tmp_path),
        "PYTHONUNBUFFERED": "1",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "outrider.server"], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()  # serving on ...
        hint = "".join(process.stdout.readline() for _ in range(3))
        assert "OUTRIDER_MODEL" in hint and "outrider demo" in hint
        assert "not ready: grpc.health says NOT_SERVING" in hint
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


async def test_a_question_that_expires_while_the_prompt_is_open_is_announced() -> None:
    def let_it_expire(child: pexpect.spawn) -> None:
        child.expect("Email", timeout=90)
        child.expect("Too late: that question closed unanswered", timeout=60)
        child.sendline("")  # the prompt still reads a line; it is dropped
        child.expect("Report", timeout=120)
        child.expect(pexpect.EOF, timeout=60)
        child.close()

    child, screen = spawn_demo(OUTRIDER_INTERACTION_TTL="4")
    await asyncio.to_thread(let_it_expire, child)
    shown = plain(screen.getvalue())
    assert "the question expired unanswered" in shown
    assert "✓ answer: Not logged in: nobody gave the login details in time." in shown
    assert child.exitstatus == 0


def test_demo_without_the_server_extra_says_what_to_install(tmp_path: Path) -> None:
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.startswith('outrider.server'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
    )
    env = demo_env() | {"PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [*CLI, "demo"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2, done.stderr
    assert "needs the server extra" in done.stdout and "outrider[server,cli]" in done.stdout


async def test_ctrl_c_at_a_password_prompt_stops_the_demo_and_its_server() -> None:
    def interrupt(child: pexpect.spawn) -> None:
        child.expect("Email", timeout=90)
        child.sendline("ada@example.com")
        child.expect("hidden as you type")  # the prompt is up: the interrupt meets it
        child.sendintr()
        child.expect(pexpect.EOF, timeout=60)
        child.close()

    child, screen = spawn_demo()
    await asyncio.to_thread(interrupt, child)
    assert child.exitstatus == 130
    port = re.search(r"gRPC server\s+127\.0\.0\.1:(\d+)", plain(screen.getvalue()))
    assert port is not None
    with socket.socket() as probe:  # the server child is gone: nothing listens there any more
        assert probe.connect_ex(("127.0.0.1", int(port.group(1)))) != 0


@contextmanager
def serving_demo() -> Iterator[subprocess.Popen[str]]:
    """`outrider demo --serve` on ports of its own, its output piped; killed at the end."""
    process = subprocess.Popen(
        [*CLI, "demo", "--serve", "--port", "0", "--rest-port", "0", "--web-port", "0"],
        env=demo_env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield process
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_the_demo_server_does_not_outlive_a_killed_demo() -> None:
    with serving_demo() as process:
        commands = read_commands(process)
        target = commands["gRPC: list the services (reflection)"].split()[2]
        process.kill()  # no clean-up code of the demo runs
        process.wait()
        host, port = target.split(":")

        def refused() -> bool:
            with socket.socket() as probe:
                return probe.connect_ex((host, int(port))) != 0

        deadline = time.monotonic() + 60
        while not refused() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert refused(), "the demo's server still listens after the demo was killed"


def test_demo_serve_names_the_console_mcp_and_a2a_and_they_answer() -> None:
    with serving_demo() as process:
        assert process.stdout is not None
        shown = []
        for line in process.stdout:
            shown.append(line)
            if line.startswith("The demo is up."):
                break
        text = plain("".join(shown))
        urls = dict(re.findall(r"(Console|MCP|A2A)\s+(http://\S+)", text))
        assert set(urls) == {"Console", "MCP", "A2A"}, text
        with httpx.Client(timeout=30) as client:
            console = client.get(urls["Console"], follow_redirects=True)
            assert console.status_code == 200 and "Outrider console" in console.text
            assert client.get(urls["A2A"]).json()["name"]
