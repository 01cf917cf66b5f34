"""`outrider`: serve, automate, research, runs list|show|cancel|events, and keys create.

Exit codes: 0 the run (or call) succeeded, 1 the run failed or was cancelled, 2 bad usage,
3 the server refused the call or could not be reached, 130 interrupted.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any

import typer

from outrider.cli.keys import keys_app
from outrider.cli.render import Renderer
from outrider.cli.run import EXIT_CALL_FAILED, EXIT_OK, Config, Watcher, interactive
from outrider.client import Options, RPCError, Tls, automate_params, research_params
from outrider.client.aio import Params

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Outrider's command line.")
runs_app = typer.Typer(no_args_is_help=True, help="Runs: list, show, cancel, events.")
app.add_typer(runs_app, name="runs")
app.add_typer(keys_app, name="keys")


@app.callback()
def main(
    ctx: typer.Context,
    target: Annotated[
        str, typer.Option(envvar="OUTRIDER_TARGET", help="Server address, host:port.")
    ] = "localhost:50051",
    api_key: Annotated[
        str | None, typer.Option(envvar="OUTRIDER_API_KEY", help="API key (Bearer).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    tls: Annotated[bool, typer.Option("--tls", envvar="OUTRIDER_TLS", help="Use TLS.")] = False,
    ca_file: Annotated[
        Path | None,
        typer.Option(envvar="OUTRIDER_CA_FILE", help="PEM CA to trust (implies --tls)."),
    ] = None,
    cert_file: Annotated[
        Path | None,
        typer.Option(envvar="OUTRIDER_CLIENT_CERT", help="PEM client certificate (mutual TLS)."),
    ] = None,
    key_file: Annotated[
        Path | None, typer.Option(envvar="OUTRIDER_CLIENT_KEY", help="PEM key of --cert-file.")
    ] = None,
) -> None:
    if (cert_file is None) != (key_file is None):
        raise typer.BadParameter("give both --cert-file and --key-file", param_hint="--cert-file")
    wants_tls = tls or ca_file is not None or cert_file is not None
    ctx.obj = Config(
        target, api_key, as_json, Tls(ca_file, cert_file, key_file) if wants_tls else None
    )


def _execute(ctx: typer.Context, work: Coroutine[Any, Any, int]) -> None:
    config: Config = ctx.obj
    try:
        code = asyncio.run(work)
    except RPCError as error:
        config.console().print(f"[bold red]error:[/] {error}")
        for field, problem in error.violations.items():
            config.console().print(f"  {field}: {problem}")
        code = EXIT_CALL_FAILED
    except KeyboardInterrupt:
        code = 130
    raise typer.Exit(code)


@app.command()
def serve() -> None:
    """Runs the server (needs the `server` extra), configured by OUTRIDER_* variables."""
    from outrider.server.__main__ import main as serve_main  # heavy and optional: imported on use

    serve_main()


@app.command()
def automate(
    ctx: typer.Context,
    task: Annotated[str, typer.Argument(help="What the browser agent should do.")],
    url: Annotated[str, typer.Option(help="Starting URL.")] = "",
    data: Annotated[str, typer.Option(help="JSON object the agent may use.")] = "",
    guardrails: Annotated[str, typer.Option(help="Constraints in natural language.")] = "",
    interactive_: Annotated[
        bool, typer.Option("--interactive", help="Answer form requests and approvals here.")
    ] = False,
    max_iterations: Annotated[int | None, typer.Option(help="1..100.")] = None,
    screenshots: Annotated[Path | None, typer.Option(help="Folder to save screenshots in.")] = None,
    model: Annotated[str, typer.Option(help="Model for this run.")] = "",
) -> None:
    """Runs a browser agent and shows its progress live."""
    params = automate_params(
        task,
        url=url,
        data=json.loads(data) if data else None,
        guardrails=guardrails,
        interactive=interactive_,
        max_iterations=max_iterations,
    )
    _execute(ctx, _automate(ctx.obj, params, Options(model=model), interactive_, screenshots))


async def _automate(
    config: Config, params: Params, options: Options, ask: bool, screenshots: Path | None
) -> int:
    console = config.console()
    async with config.client() as client:
        watcher = Watcher(client, Renderer(console, config.as_json), screenshots)
        if ask:
            return await interactive(watcher, console, params, options)
        return await watcher.watch(client.stream(params, options=options))


@app.command()
def research(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="The research question.")],
    mode: Annotated[str, typer.Option(help="fast, balanced, deep, max or ultra.")] = "fast",
    model: Annotated[str, typer.Option(help="Model for this run.")] = "",
) -> None:
    """Runs a research agent, shows its phases and renders the cited report."""
    try:
        research_params(query, mode=mode)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--mode") from None
    _execute(ctx, _research(ctx.obj, query, mode, Options(model=model)))


async def _research(config: Config, query: str, mode: str, options: Options) -> int:
    async with config.client() as client:
        watcher = Watcher(client, Renderer(config.console(), config.as_json))
        return await watcher.watch(client.research(query, mode=mode, options=options))


@runs_app.command("list")
def runs_list(
    ctx: typer.Context, limit: Annotated[int, typer.Option(help="How many runs.")] = 20
) -> None:
    """Lists runs, newest first."""
    _execute(ctx, _list(ctx.obj, limit))


async def _list(config: Config, limit: int) -> int:
    async with config.client() as client:
        page = await client.list_runs(page_size=limit)
        Renderer(config.console(), config.as_json).runs(page.items)
    return EXIT_OK


@runs_app.command("show")
def runs_show(ctx: typer.Context, run: Annotated[str, typer.Argument()]) -> None:
    """Shows one run."""
    _execute(ctx, _show(ctx.obj, run))


async def _show(config: Config, run: str) -> int:
    async with config.client() as client:
        Renderer(config.console(), config.as_json).run(await client.get_run(run))
    return EXIT_OK


@runs_app.command("cancel")
def runs_cancel(
    ctx: typer.Context,
    run: Annotated[str, typer.Argument()],
    reason: Annotated[str, typer.Option()] = "cancelled from the command line",
) -> None:
    """Cancels a run (idempotent)."""
    _execute(ctx, _cancel(ctx.obj, run, reason))


async def _cancel(config: Config, run: str, reason: str) -> int:
    async with config.client() as client:
        Renderer(config.console(), config.as_json).run(await client.cancel_run(run, reason=reason))
    return EXIT_OK


@runs_app.command("events")
def runs_events(
    ctx: typer.Context,
    run: Annotated[str, typer.Argument()],
    after: Annotated[int, typer.Option(help="Only events with a greater sequence.")] = 0,
    screenshots: Annotated[Path | None, typer.Option(help="Folder for screenshots.")] = None,
) -> None:
    """Prints a run's events after a sequence, then follows it live until it ends."""
    _execute(ctx, _events(ctx.obj, run, after, screenshots))


async def _events(config: Config, run: str, after: int, screenshots: Path | None) -> int:
    async with config.client() as client:
        watcher = Watcher(client, Renderer(config.console(), config.as_json), screenshots)
        watcher.run = run if run.startswith("runs/") else f"runs/{run}"
        return await watcher.watch(client.events(run, after=after))


if __name__ == "__main__":
    app()
