"""`outrider demo`: the whole product on this machine, no model API key.

It serves the bundled demo site and research corpus on loopback, starts a real server (child
process) that uses the bundled scripted demo model and lets exactly the site's port through the
network guard, then runs an interactive browser run (form data and an approval asked here) and a
research run (a cited report). `--serve` keeps it all up and prints commands to try instead."""

from __future__ import annotations

import asyncio
import signal
import threading
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.panel import Panel

from outrider.cli.demo_commands import LOGIN_TASK, QUESTION, commands
from outrider.cli.run import EXIT_OK, EXIT_RUN_FAILED, Config, Start, Watcher, interactive
from outrider.client import Options, RPCError, automate_params

if TYPE_CHECKING:
    from outrider.server.demo.environment import Demo, Ports

SCRIPTED_NOTE = (
    "The agents, the browser (Chromium), the server and the network guard are real; the model is "
    "not: a bundled [bold]scripted demo model[/] replays fixed turns, so no API key is needed and "
    "its words are canned."
)


def demo(
    ctx: typer.Context,
    serve: Annotated[
        bool, typer.Option("--serve", help="Keep the demo up and print commands to try.")
    ] = False,
    port: Annotated[int | None, typer.Option(help="gRPC port (--serve: 50051).")] = None,
    rest_port: Annotated[int | None, typer.Option(help="REST/SSE port (--serve: 8080).")] = None,
    web_port: Annotated[int | None, typer.Option(help="Demo site port (--serve: 8000).")] = None,
) -> None:
    """Tries Outrider with a bundled site, corpus and scripted model: no key, no set-up."""
    config: Config = ctx.obj
    console = config.console()
    try:
        from outrider.server.demo.environment import DemoError, Ports, demo_environment
    except ImportError as error:
        console.print(
            "[bold red]outrider demo starts a server, which needs the server extra[/] "
            f"(missing: {error.name or error}).\nInstall it with: pip install "
            "'outrider\\[server,cli]' (from a clone: ./scripts/demo installs everything)"
        )
        raise typer.Exit(2) from None
    fixed = Ports()
    ports = Ports(
        _port(port, fixed.grpc, serve),
        _port(rest_port, fixed.rest, serve),
        _port(web_port, fixed.web, serve),
    )
    console.print("[dim]Starting the demo site, its search index and an Outrider server…[/]")
    try:
        with demo_environment(ports) as env:
            code = _serve(console, env, ports) if serve else _walkthrough(config, console, env)
    except DemoError as error:
        console.print(f"[bold red]The demo could not start:[/] {error}")
        code = 3
    except RPCError as error:
        config.renderer().error(error)
        code = 3
    except KeyboardInterrupt:
        code = 130
    raise typer.Exit(code)


def _port(chosen: int | None, default: int, serve: bool) -> int:
    """--serve prefers the README's ports; the walkthrough takes free ones."""
    if chosen is not None:
        return chosen
    return default if serve else 0


def _about(console: Console, env: Demo) -> None:
    doors = "".join(f"{door.name:<13}{door.url}\n" for door in env.doors)
    console.print(
        Panel(
            f"{SCRIPTED_NOTE}\n\n"
            f"gRPC server  {env.target}\n{doors}"
            f"demo site    {env.web_url}/shop/  (research corpus: {env.web_url}/docs/)\n"
            f"network      only 127.0.0.1:{env.web_url.rsplit(':', 1)[1]} is let through\n"
            f"server log   {env.log_file}",
            title="Outrider demo",
        )
    )


def _walkthrough(config: Config, console: Console, env: Demo) -> int:
    _about(console, env)
    demo_config = Config(env.target, None, config.as_json, config.verbose)
    return asyncio.run(_runs(demo_config, console, env.web_url))


async def _runs(config: Config, console: Console, web_url: str) -> int:
    async with config.client() as client:
        console.rule("1. A browser run that asks you for a login")
        console.print(
            "The agent opens the shop's login page and asks you for an email and a password: "
            "type anything (the shop wants a password of at least 8 characters; try a shorter "
            "one to see the page reject it). Then it asks before it sends the form.\n"
        )
        params = automate_params(LOGIN_TASK, url=f"{web_url}/shop/login.html", interactive=True)
        watcher = Watcher(client, config.renderer())
        browser = await interactive(watcher, console, Start(params, Options(omit_prompts=True)))
        console.rule("2. A research run over the bundled tea notes")
        console.print(f"Question: {QUESTION}\n")
        watcher = Watcher(client, config.renderer())
        research = await watcher.watch(client.research(QUESTION, mode="fast"))
    console.rule("Next")
    console.print(
        "outrider demo --serve   keeps this up and prints grpcurl, curl and Python commands\n"
        "With a real model:      OUTRIDER_MODEL=openai:gpt-4.1-mini OPENAI_API_KEY=… outrider "
        "serve\n                        (or anthropic:…, gemini:…, openai-compatible:<model>@<url>;"
        " see the README)"
    )
    return EXIT_OK if browser == research == EXIT_OK else EXIT_RUN_FAILED


def _serve(console: Console, env: Demo, wanted: Ports) -> int:
    _about(console, env)
    for name, port, url in (
        ("gRPC", wanted.grpc, env.target),
        ("REST/SSE", wanted.rest, env.rest_url),
        ("demo site", wanted.web, env.web_url),
    ):
        if port and not url.endswith(f":{port}"):
            console.print(f"[yellow]Port {port} was taken, so {name} is on {url}.[/]")
    for title, command in commands(env.target, env.rest_url, env.web_url):
        console.print(f"\n[bold]# {title}[/]")
        console.print(command, markup=False, highlight=False, soft_wrap=True)
    console.print("\n[bold green]The demo is up.[/] Ctrl-C stops it.")
    _wait_for_signal()
    console.print("[dim]Stopping the demo…[/]")
    return EXIT_OK


def _wait_for_signal() -> None:
    stop = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, handler)
    while not stop.wait(0.5):
        pass
