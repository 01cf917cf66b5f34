"""A newcomer's first commands, as they type them: a virtualenv made by `scripts/bootstrap.sh`
without the test tools, `scripts/demo --serve` from it, then every command the demo prints and
the README's examples run as written (only the ports differ: parallel tests cannot hold the
README's), from a PATH without this suite's virtualenv. Before, the printed grpcurl lines failed
with `command not found` outside a test virtualenv, and the README's client example did not run."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest

from tests.cli.test_terminal import plain
from tests.support.harness import REPO_ROOT

pytestmark = pytest.mark.long_running  # a fresh virtualenv: about a minute of pip

PASSWORD = "tea-Leaf-2231"
PRICE = "The Red Mug costs $8.25."
FREE_PORTS = ("--port", "0", "--rest-port", "0", "--web-port", "0")


def newcomer_env(venv: Path) -> dict[str, str]:
    """This machine's environment (pip's index and CA settings) without the suite's virtualenv
    on PATH and without any OUTRIDER_* setting of the suite."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("OUTRIDER_", "VIRTUAL_ENV"))}
    ours = (sys.prefix, str(REPO_ROOT))
    path = [entry for entry in os.environ["PATH"].split(":") if not entry.startswith(ours)]
    return keep | {
        "PATH": ":".join(path),
        "OUTRIDER_VENV": str(venv),
        "COLUMNS": "200",
        "NO_COLOR": "1",
        "PYTHONUNBUFFERED": "1",
    }


@dataclass
class Demo:
    venv: Path
    env: dict[str, str]
    commands: dict[str, str]  # title -> command, as printed
    target: str
    rest: str  # host:port
    web: str  # host:port

    def as_written(self, text: str) -> str:
        """A README text pointed at this demo's ports instead of the README's defaults."""
        return (
            text.replace("localhost:50051", self.target)
            .replace("127.0.0.1:50051", self.target)
            .replace("127.0.0.1:8080", self.rest)
            .replace("127.0.0.1:8000", self.web)
        )

    def shell(self, command: str) -> str:
        done = subprocess.run(
            ["bash", "-c", command],
            env=self.env,
            cwd=self.venv.parent,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-3000:])
        return done.stdout


def test_a_newcomers_commands_work_as_printed_and_as_written(tmp_path: Path) -> None:
    """One test, so the suite's parallel workers make one fresh virtualenv, not one each."""
    with serving_demo(bootstrapped(tmp_path / "venv")) as demo, ThreadPoolExecutor(4) as pool:
        checks = [
            pool.submit(every_printed_command_works_as_printed, demo),
            pool.submit(the_readme_client_example_runs_as_written, demo, tmp_path),
            pool.submit(the_readme_tabstack_example_runs_as_written, demo, tmp_path),
            pool.submit(the_readme_grpcurl_walkthrough_runs_as_written, demo),
            pool.submit(the_readme_mcp_examples_run_as_written, demo, tmp_path),
        ]
        for check in checks:
            check.result()


def bootstrapped(venv: Path) -> Path:
    done = subprocess.run(
        [REPO_ROOT / "scripts" / "bootstrap.sh", "python", "--demo"],
        env=newcomer_env(venv),
        capture_output=True,
        text=True,
        timeout=840,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert not (venv / "bin" / "pytest").exists()  # no test tools in it
    return venv


@contextlib.contextmanager
def serving_demo(venv: Path) -> Iterator[Demo]:
    env = newcomer_env(venv)
    process = subprocess.Popen(
        [REPO_ROOT / "scripts" / "demo", "--serve", *FREE_PORTS],
        env=env,
        cwd=venv.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        commands = read_commands(process)
        target = commands["gRPC: list the services (reflection)"].split()[2]
        rest = re.search(r"http://(127\.0\.0\.1:\d+)/v1/automate", "".join(commands.values()))
        web = re.search(r"http://(127\.0\.0\.1:\d+)/shop/", "".join(commands.values()))
        assert rest is not None and web is not None, commands
        yield Demo(venv, env, commands, target, rest.group(1), web.group(1))
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def read_commands(process: subprocess.Popen[str]) -> dict[str, str]:
    """The printed commands by title, up to "The demo is up."."""
    assert process.stdout is not None
    commands: dict[str, str] = {}
    title, lines, shown = "", [], []
    for line in process.stdout:
        shown.append(line)
        if line.startswith("The demo is up."):
            return commands
        if line.startswith("# "):
            title, lines = line[2:].strip(), []
        elif title and line.strip():
            lines.append(line)
            commands[title] = "".join(lines)
    raise AssertionError("the demo ended before it was up:\n" + "".join(shown[-40:]))


def every_printed_command_works_as_printed(demo: Demo) -> None:
    commands = dict(demo.commands)
    assert len(commands) == 9, commands
    grpcurl = commands["gRPC: list the services (reflection)"].split()[0]
    assert grpcurl == str(demo.venv / "bin" / "grpcurl")  # installed with the demo
    interactive = commands.pop(next(title for title in commands if "interactive run" in title))
    with ThreadPoolExecutor(4) as pool:  # the demo server runs 4 at once; more wait in line
        login = pool.submit(log_in, demo, interactive)
        outputs = dict(zip(commands, pool.map(demo.shell, commands.values()), strict=True))
        shown = login.result()
    assert "✓ answer: Logged in." in plain(shown) and PASSWORD not in shown
    assert "outrider.v1.RunService" in outputs["gRPC: list the services (reflection)"]
    full = outputs["gRPC: a browser run, streamed"]
    lean = outputs["gRPC: the same, ai:generation events without prompt bodies"]
    answer = re.compile(r'"final_?[aA]nswer": "The Red Mug costs \$8\.25\."')
    assert answer.search(full) and answer.search(lean), full[-2000:]
    assert "EXTERNAL_CONTENT" in full and "EXTERNAL_CONTENT" not in lean
    assert '"prompt"' not in lean and len(lean) < len(full) / 2
    assert "Keeping tea fresh" in outputs["gRPC: a research run"]
    rest = outputs["REST/SSE (Tabstack's API): a browser run"]
    assert PRICE in rest and '"prompt":""' in rest and "EXTERNAL_CONTENT" not in rest
    assert "event: complete" in outputs["REST/SSE: a research run"]
    assert outputs["Python (outrider.client)"].strip() == PRICE
    assert "Keeping tea fresh" in outputs["CLI: research with the cited report"]


def log_in(demo: Demo, command: str) -> str:
    """The interactive CLI command at a terminal: a login, then an approval."""
    child = pexpect.spawn(
        "bash", ["-c", command], env=demo.env, encoding="utf-8", timeout=120, dimensions=(50, 200)
    )
    child.expect("Email")
    child.sendline("ada@example.com")
    child.expect("Password")
    child.sendline(PASSWORD)
    child.expect(r"Allow it\?")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return str(child.before)


def readme_block(language: str, containing: str) -> str:
    """The README's fenced code block of this language that contains the text."""
    readme = (REPO_ROOT / "README.md").read_text()
    blocks = re.findall(rf"^```{language}\n(.*?)^```$", readme, re.S | re.M)
    (block,) = [b for b in blocks if containing in b]
    return str(block)


def the_readme_client_example_runs_as_written(demo: Demo, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(demo.as_written(readme_block("python", "from outrider.client import")))
    output = demo.shell(f"{demo.venv / 'bin' / 'python'} {script}")
    assert "task:completed" in output and "Keeping tea fresh" in output
    logged_in = "Logged in. Two orders are on their way: a Green Teapot and a Red Mug."
    assert output.strip().endswith(logged_in)


def the_readme_tabstack_example_runs_as_written(demo: Demo, tmp_path: Path) -> None:
    script = tmp_path / "tabstack_example.py"
    script.write_text(demo.as_written(readme_block("python", "from tabstack import Tabstack")))
    # tabstack is not one of Outrider's dependencies: the suite's virtualenv has it
    output = demo.shell(f"{sys.executable} {script}")
    assert "task:completed" in output and PRICE in output


def the_readme_mcp_examples_run_as_written(demo: Demo, tmp_path: Path) -> None:
    """The Python example, and both client entries (HTTP and stdio) as an MCP client uses them,
    with `outrider` on PATH as a desktop client finds it."""
    python, report = demo.venv / "bin" / "python", "Keep any tea in an airtight, opaque tin"
    script = tmp_path / "mcp_example.py"
    script.write_text(demo.as_written(readme_block("python", "from mcp import Client")))
    assert report in demo.shell(f"{python} {script}")
    check = REPO_ROOT / "tests" / "packaging" / "mcp_config_check.py"
    for entry in ('"type": "http"', '"command": "outrider"'):
        config = shlex.quote(demo.as_written(readme_block("json", entry)))
        output = demo.shell(f'PATH="{demo.venv / "bin"}:$PATH" {python} {check} {config}')
        assert output.startswith("automate research get_run") and report in output, output


def the_readme_grpcurl_walkthrough_runs_as_written(demo: Demo) -> None:
    walkthrough = readme_block("sh", "grpcurl -plaintext 127.0.0.1:50051 list")
    lines = walkthrough.replace("\\\n", " ").splitlines()  # continued lines joined
    calls = [line for line in lines if line.startswith("grpcurl")]
    grpcurl = str(demo.venv / "bin" / "grpcurl")
    ran = {}
    for call in calls:
        command = demo.as_written(call).replace("grpcurl", grpcurl, 1)
        if "<id>" in command:  # a run of its own, started by the walkthrough's first Automate
            command = command.replace("<id>", ran["run"])
        if "<session>" in command:  # the session the walkthrough's CreateSession made
            command = command.replace("<session>", ran["session"])
        if "interactions/<" in command:  # what a waiting run asks: none waits here
            command = re.sub(r"interactions/<\w+>", "interactions/" + "0" * 24, command)
            done = subprocess.run(
                ["bash", "-c", command], env=demo.env, capture_output=True, text=True, check=False
            )
            assert "Code: NotFound" in done.stderr, (command, done.stderr)  # well-formed, unknown
            continue
        output = demo.shell(command)
        if "SessionService/CreateSession" in command:
            found = re.search(r'"name": "sessions/([0-9a-f]+)"', output)
            assert found is not None, output[:2000]
            ran["session"] = found.group(1)
        if "RunService/Automate" in command and "run" not in ran:
            found = re.search(r'"run": "runs/([0-9a-f]+)"', output)
            assert found is not None, output[:2000]
            ran["run"] = found.group(1)
    assert len(calls) >= 12 and "run" in ran
